export function run(_argv: string[]): Promise<number> {
  return Promise.resolve(0);
}
