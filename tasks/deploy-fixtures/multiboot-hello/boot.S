/*
 * Multiboot (version 1) entry: the header a multiboot loader (QEMU's -kernel, GRUB) looks for in the first
 * 8 KiB of the image, a small stack, and the jump to C. The loader enters in 32-bit protected mode with
 * paging off, EAX = 0x2BADB002 and EBX = the multiboot information structure.
 */
#define MB_MAGIC 0x1BADB002
#define MB_FLAGS 0x00000003 /* page-align modules, give memory information */

	.section .multiboot, "a"
	.align 4
	.long MB_MAGIC
	.long MB_FLAGS
	.long -(MB_MAGIC + MB_FLAGS)

	.section .bss
	.align 16
stack_bottom:
	.skip 16384
stack_top:

	.section .text
	.global _start
	.type _start, @function
_start:
	mov $stack_top, %esp
	push %ebx /* multiboot information */
	push %eax /* loader's magic */
	call kernel_main
	cli
1:	hlt
	jmp 1b
	.size _start, . - _start

	.section .note.GNU-stack, "", @progbits
