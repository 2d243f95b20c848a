// blockwire rest started for a Node.js check: on a port of the kernel's
// choosing on loopback, its address read from its first line; stop() ends
// it by its PID (call it in a finally).
import { spawn } from 'node:child_process';
import readline from 'node:readline';

export async function startRest(blockwire, blocksDir, args, env) {
  const server = spawn(blockwire, ['rest', blocksDir, '--listen', '127.0.0.1:0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = () => server.kill('SIGTERM');
  try {
    const line = await new Promise((resolve, reject) => {
      readline.createInterface({ input: server.stdout }).once('line', resolve);
      server.once('exit', (code) => reject(new Error(`blockwire rest exited (${code})`)));
    });
    return { port: Number(line.trim().split(':').at(-1)), stop };
  } catch (e) {
    stop();
    throw e;
  }
}
