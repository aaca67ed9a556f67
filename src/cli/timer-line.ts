import type * as Clack from '@clack/prompts';
import pc from 'picocolors';

export interface TimerLine {
  done(): void;
  failed(): void;
  interrupted(): void;
}

/**
 * A spinner line with the elapsed time, drawn with clack's marks. Unlike clack's own spinner it
 * leaves stdin alone: clack's puts the terminal in raw mode and answers Ctrl-C with an exit code
 * of 0 and its success mark. Here Ctrl-C stays a SIGINT, which reaches the running step and this
 * process, so an interrupted step ends as interrupted.
 */
export function startTimerLine(clack: typeof Clack, label: string, output: NodeJS.WriteStream = process.stdout): TimerLine {
  const frames = clack.unicode ? ['◒', '◐', '◓', '◑'] : ['•', 'o', 'O', '0'];
  const started = Date.now();
  const elapsed = () => `[${Math.floor((Date.now() - started) / 1000)}s]`;
  let frame = 0;
  output.write(`${pc.gray(clack.S_BAR)}\n\u001b[?25l`);
  const draw = () => {
    output.write(`\r\u001b[2K${pc.magenta(frames[frame]!)}  ${label} ${elapsed()}`);
    frame = (frame + 1) % frames.length;
  };
  draw();
  const timer = setInterval(draw, 100);
  let ended = false;
  const end = (mark: string, text: string) => {
    if (ended) return;
    ended = true;
    clearInterval(timer);
    output.write(`\r\u001b[2K${mark}  ${text} ${elapsed()}\n\u001b[?25h`);
  };
  return {
    done: () => end(pc.green(clack.S_STEP_SUBMIT), label),
    failed: () => end(pc.red(clack.S_STEP_ERROR), `${label} failed`),
    interrupted: () => end(pc.red(clack.S_STEP_CANCEL), `${label}: interrupted`),
  };
}
