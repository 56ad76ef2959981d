/*
 * A bare-metal guest in a few KB: prints one line on the first serial port (COM1, 16550 UART at 0x3F8)
 * and halts (ending QEMU when it has an isa-debug-exit device). No libc, no interrupts, no paging.
 */
#include <stdint.h>

#define COM1 0x3F8
/* QEMU's isa-debug-exit device, when the command line adds it: a write ends QEMU with (value << 1) | 1. */
#define DEBUG_EXIT 0xF4
#define MULTIBOOT_LOADER_MAGIC 0x2BADB002u

static inline void outb(uint16_t port, uint8_t value) {
  __asm__ volatile("outb %0, %1" : : "a"(value), "Nd"(port));
}

static inline uint8_t inb(uint16_t port) {
  uint8_t value;
  __asm__ volatile("inb %1, %0" : "=a"(value) : "Nd"(port));
  return value;
}

static void serial_init(void) {
  outb(COM1 + 1, 0x00); /* no interrupts */
  outb(COM1 + 3, 0x80); /* DLAB on: set the divisor */
  outb(COM1 + 0, 0x01); /* 115200 baud */
  outb(COM1 + 1, 0x00);
  outb(COM1 + 3, 0x03); /* 8 bits, no parity, one stop bit */
  outb(COM1 + 2, 0xC7); /* FIFO on, cleared */
  outb(COM1 + 4, 0x03); /* DTR, RTS */
}

static void serial_putc(char c) {
  while ((inb(COM1 + 5) & 0x20) == 0) {
    /* wait until the transmit holding register is empty */
  }
  outb(COM1, (uint8_t)c);
}

static void serial_puts(const char *s) {
  for (; *s; s++) {
    if (*s == '\n') serial_putc('\r');
    serial_putc(*s);
  }
}

static void serial_puthex(uint32_t value) {
  static const char digits[] = "0123456789abcdef";
  serial_puts("0x");
  for (int shift = 28; shift >= 0; shift -= 4) serial_putc(digits[(value >> shift) & 0xF]);
}

void kernel_main(uint32_t magic, uint32_t info) {
  serial_init();
  if (magic != MULTIBOOT_LOADER_MAGIC) {
    serial_puts("multiboot-hello: not started by a multiboot loader, magic ");
    serial_puthex(magic);
    serial_puts("\n");
    return;
  }
  serial_puts("multiboot-hello: hello from a bare-metal guest (multiboot info at ");
  serial_puthex(info);
  serial_puts(")\n");
  serial_puts("multiboot-hello: halting\n");
  outb(DEBUG_EXIT, 0); /* ignored on a machine without the device: the guest then halts */
}
