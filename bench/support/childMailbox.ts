import { fork } from 'node:child_process';

/**
 * The mailbox between a benchmark and a child process of its own (`npm run bench:metrics` and
 * `npm run bench:filter` load DuckDB in one, then ask it over IPC for one timed run at a time):
 * each side reads the other's messages in the order they were sent, one at a time, whether they
 * arrived before they were asked for or after.
 */

/** A message either way: told apart by its kind. */
export interface Tagged {
  kind: string;
}

/** The parent's side of a forked child: `next(kind)` answers its next message, which must be of that kind. */
export interface ChildMailbox<Message extends Tagged, Command> {
  next<K extends Message['kind']>(kind: K): Promise<Extract<Message, { kind: K }>>;
  send(command: Command): void;
}

/**
 * Forks `file` with `args` (as this process runs, `--import tsx` included; structured clone
 * over IPC). A message waited for fails once the child has exited, named `name` in the error.
 */
export function forkWithMailbox<Message extends Tagged, Command>(file: string, args: string[], name: string): ChildMailbox<Message, Command> {
  const child = fork(file, args, { serialization: 'advanced' });
  const inbox: Message[] = [];
  let waiting: { resolve: (message: Message) => void; reject: (error: Error) => void } | null = null;
  let exited: Error | null = null;
  child.on('message', (message) => {
    if (waiting) {
      const w = waiting;
      waiting = null;
      w.resolve(message as Message);
    } else inbox.push(message as Message);
  });
  child.on('exit', (code) => {
    exited = new Error(`the ${name} child exited with ${code}`);
    waiting?.reject(exited);
  });
  return {
    next: <K extends Message['kind']>(kind: K) =>
      new Promise<Message>((resolve, reject) => {
        const queued = inbox.shift();
        if (queued) resolve(queued);
        else if (exited) reject(exited);
        else waiting = { resolve, reject };
      }).then((message) => {
        if (message.kind !== kind) throw new Error(`the ${name} child sent ${message.kind}, not ${kind}`);
        return message as Extract<Message, { kind: K }>;
      }),
    send: (command) => {
      child.send(command as object);
    },
  };
}

/** The child's side: sends a message to the parent; resolves once it is handed to the channel. */
export function sendToParent(message: Tagged): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!process.send) throw new Error('a child role needs an IPC channel');
    process.send(message, undefined, {}, (error) => (error ? reject(error) : resolve()));
  });
}

/**
 * The child's side: the parent's commands in the order sent, from now on (call it before telling
 * the parent it is ready). The function answers the next command, waiting for it if need be.
 */
export function commandsFromParent<Command>(): () => Promise<Command> {
  const commands: Command[] = [];
  let wake: (() => void) | null = null;
  process.on('message', (command: Command) => {
    commands.push(command);
    wake?.();
  });
  return async () => {
    while (commands.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    return commands.shift() as Command;
  };
}
