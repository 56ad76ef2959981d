/** What a command reads and writes: its output streams, the environment and the working folder. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** stderr is a terminal: the heartbeat is then a status line redrawn in place. */
  stderrIsTTY?: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
}
