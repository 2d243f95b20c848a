"""What the Python scenario scripts share: their command line (a work directory made empty), the blockwire command run
with its output kept, a regtest chain made by make_chain, and the scenario named on the command line run."""

import contextlib
import os
import shutil
import signal
import subprocess
import sys


def arguments(*names):
    """The command line's values for `names`, in order (usage said, exit 2, when some are missing); the one named 'work'
    is made an empty directory."""
    if len(sys.argv) < len(names) + 1:
        sys.exit(f'usage: {os.path.basename(sys.argv[0])} ' + ' '.join(n.upper() for n in names))
    values = sys.argv[1:len(names) + 1]
    if 'work' in names:
        work = values[names.index('work')]
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
    return values


def runner(blockwire, timeout=120, env=None):
    """run(*args): the command's CompletedProcess (text output kept); check=STATUS asserts its exit status."""

    def run(*args, timeout=timeout, check=None, env=env, **kwargs):
        r = subprocess.run([blockwire, *args], capture_output=True, text=True, timeout=timeout, env=env, **kwargs)
        if check is not None:
            assert r.returncode == check, (args, r.returncode, r.stdout, r.stderr)
        return r

    return run


def read_chain(hex_file):
    """make_chain's --hex: each block's bytes, in chain order."""
    with open(hex_file) as f:
        return [bytes.fromhex(line.strip()) for line in f if line.strip()]


def make_chain(tool, work, name, n, *extra, blocks=True):
    """A regtest chain of `n` blocks after genesis that the library made in WORK/NAME: its directory, and with `blocks`
    (its --hex) the blocks' bytes in chain order too."""
    directory = os.path.join(work, name)
    args = [tool, directory, str(n), *extra]
    if blocks:
        hex_file = directory + '.hex'
        args += ['--hex', hex_file]
    subprocess.run(args, check=True, capture_output=True)
    return (directory, read_chain(hex_file)) if blocks else directory


@contextlib.contextmanager
def fetching_from_serve(blockwire, make_chain_tool, work, blocks, *extra):
    """A chain of `blocks` made by make_chain (with `extra` options) in WORK/source, served by blockwire serve: yields
    the fetch command that copies it into WORK/target, and that target; serve is stopped by its PID after."""
    source = make_chain(make_chain_tool, work, 'source', blocks, *extra, blocks=False)
    target = os.path.join(work, 'target')
    serve = subprocess.Popen([blockwire, 'serve', source, '--listen', '127.0.0.1:0'], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True)
    try:
        port = int(serve.stdout.readline().strip().rsplit(':', 1)[1])
        yield [blockwire, 'fetch', f'127.0.0.1:{port}', '-o', target, '--network', 'regtest', '--no-progress'], target
    finally:
        stop(serve)


def stop(proc, seconds=10):
    """SIGTERM to a server started by a scenario, killed if it has not exited within `seconds`."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def dispatch(scenario, namespace, families=None):
    """Runs scenario_<SCENARIO> of `namespace` (a script's globals()), or a family's function for a name that starts
    with one of `families`' prefixes (given the rest of the name); says which when none is."""
    for prefix, run in (families or {}).items():
        if scenario.startswith(prefix):
            run(scenario[len(prefix):])
            break
    else:
        known = sorted(k[len('scenario_'):] for k in namespace if k.startswith('scenario_'))
        if 'scenario_' + scenario not in namespace:
            sys.exit(f'no scenario {scenario!r}; known: ' + ', '.join(known))
        namespace['scenario_' + scenario]()
    print('ok:', scenario)
