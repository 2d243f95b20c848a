"""The systemd units of rest, serve and electrum (apps/blockwire/dist): systemd-analyze verifies each and rates its
hardening OK or better; and each unit's command line runs as the unit runs it, without a running systemd: its
ExecStart and Environment, another user than the directory's owner (nobody, when the test runs as root), the node's
directory read-only, a state directory to write in, and NOTIFY_SOCKET on a socket this test listens on, where READY=1
comes once it listens (its STATUS saying the tip), STOPPING=1 on SIGTERM.

usage: service_test.py BLOCKWIRE MAKE_CHAIN DATA_DIR WORK_DIR SCENARIO"""

import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'support'))
import scenario  # noqa: E402

blockwire, make_chain_tool, data, work, which = scenario.arguments('blockwire', 'make_chain', 'data', 'work', 'scenario')
UNITS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'apps', 'blockwire', 'dist')
BLOCKS = 12  # make_chain's blocks after genesis: the tip's height


def unit_lines(command):
    """The unit file's `Key=value` lines of [Service], in order."""
    with open(os.path.join(UNITS, f'blockwire-{command}.service')) as f:
        return [line.strip() for line in f if re.match(r'^[A-Za-z]+=', line.strip())]


def scenario_units():
    """systemd-analyze verify on each unit (its binary the build's), and security's offline rating OK or better."""
    for command in ('rest', 'serve', 'electrum'):
        with open(os.path.join(UNITS, f'blockwire-{command}.service')) as f:
            text = f.read()
        assert '/usr/bin/blockwire ' in text
        unit = os.path.join(work, f'blockwire-{command}.service')
        with open(unit, 'w') as f:
            f.write(text.replace('/usr/bin/blockwire ', os.path.abspath(blockwire) + ' '))
        r = subprocess.run(['systemd-analyze', 'verify', '--man=no', unit], capture_output=True, text=True)
        assert r.returncode == 0 and r.stderr.strip() == '', (command, r.stderr)
        r = subprocess.run(['systemd-analyze', 'security', '--offline=true', '--no-pager', unit], capture_output=True, text=True)
        rating = re.search(r'Overall exposure level for \S+: ([0-9.]+) (\w+)', r.stdout)
        assert rating, (command, r.stdout[-500:], r.stderr)
        print(command, rating.group(1), rating.group(2))
        assert rating.group(2) in ('SAFE', 'OK'), (command, rating.group(0))
        # What the issue asks of each, present.
        for setting in ('Type=notify', 'DynamicUser=yes', 'ProtectSystem=strict', 'NoNewPrivileges=yes', 'PrivateTmp=yes',
                        'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX', 'StateDirectory=blockwire', 'TimeoutStartSec=infinity',
                        'RestartPreventExitStatus=2'):
            assert setting in text, (command, setting)


def files_of(directory):
    """Each file under `directory` with its size and time of change."""
    found = {}
    for root, _, names in os.walk(directory):
        for name in names:
            st = os.stat(os.path.join(root, name))
            found[os.path.relpath(os.path.join(root, name), directory)] = (st.st_size, st.st_mtime_ns)
    return found


def as_the_unit(command, ask):
    """Runs the unit's ExecStart as the unit would, asks it `ask(port)`, stops it with SIGTERM; returns what came on
    NOTIFY_SOCKET, in order."""
    root = tempfile.mkdtemp(prefix='blockwire-unit-')
    try:
        os.chmod(root, 0o755)
        # The program where another user can reach it (the build tree's parents need not be).
        program = os.path.join(root, 'blockwire')
        shutil.copy(blockwire, program)
        os.chmod(program, 0o755)
        blocks = scenario.make_chain(make_chain_tool, root, 'blocks', BLOCKS, '--undo', blocks=False)
        as_root = os.geteuid() == 0
        uid, gid = (65534, 65534) if as_root else (os.geteuid(), os.getegid())
        # The node's directory: read-only to the service (another user's files when root; no write bit either way).
        for dirpath, dirnames, filenames in os.walk(blocks):
            for name in filenames:
                os.chmod(os.path.join(dirpath, name), 0o444)
            os.chmod(dirpath, 0o555)
        before = files_of(blocks)
        state = os.path.join(root, 'state')  # StateDirectory=blockwire under %S
        os.makedirs(os.path.join(state, 'blockwire'))
        os.chown(state, uid, gid) if as_root else None
        os.chown(os.path.join(state, 'blockwire'), uid, gid) if as_root else None
        conf = os.path.join(root, 'blockwire.conf')
        with open(conf, 'w') as f:
            f.write(f'[{command}]\ndir = {blocks}\nlisten = 127.0.0.1:0\n')
        os.chmod(conf, 0o644)
        notify_path = os.path.join(root, 'notify')
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        os.chmod(notify_path, 0o777)

        lines = unit_lines(command)
        exec_start = next(line for line in lines if line.startswith('ExecStart=')).split('=', 1)[1].split()
        assert exec_start[0] == '/usr/bin/blockwire' and '/etc/blockwire/blockwire.conf' in exec_start, exec_start
        argv = [program if a == '/usr/bin/blockwire' else conf if a == '/etc/blockwire/blockwire.conf' else a for a in exec_start]
        env = {'PATH': '/usr/bin:/bin', 'NOTIFY_SOCKET': notify_path}
        for line in lines:
            if line.startswith('Environment='):
                key, value = line.split('=', 1)[1].split('=', 1)
                env[key] = value.replace('%S', state).replace('%N', f'blockwire-{command}')
        cache = os.path.join(state, 'blockwire', f'blockwire-{command}')  # each unit's own (LevelDB opens once)
        assert env.get('XDG_CACHE_HOME') == cache, env
        if as_root:
            argv = ['setpriv', f'--reuid={uid}', f'--regid={gid}', '--clear-groups', *argv]
        # Standard error as systemd connects it to the journal: JOURNAL_STREAM names its device and inode.
        err_read, err_write = os.pipe()
        st = os.fstat(err_write)
        env['JOURNAL_STREAM'] = f'{st.st_dev}:{st.st_ino}'
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err_write, text=True, env=env, cwd='/')
        os.close(err_write)
        # Its log read as it comes (a full pipe would stop the server).
        log = []
        reader = threading.Thread(target=lambda: log.extend(os.fdopen(err_read).read().splitlines()))
        reader.start()
        messages = []
        try:
            notify.settimeout(120)
            first = proc.stdout.readline()
            assert first.startswith('listening on 127.0.0.1:'), (first, proc.wait(timeout=60), reader.join(), log)
            port = int(first.strip().rsplit(':', 1)[1])
            while not any('READY=1' in m for m in messages):
                messages.append(notify.recv(4096).decode())
            ready = next(m for m in messages if 'READY=1' in m)
            assert f'STATUS={blocks} (regtest): tip {BLOCKS}' in ready.split('\n'), ready
            ask(port)
            proc.send_signal(signal.SIGTERM)
            while not any('STOPPING=1' in m for m in messages):
                messages.append(notify.recv(4096).decode())
            assert proc.wait(timeout=60) == 0
            reader.join()
            # journald's level prefixes: the stop is a notice.
            assert f'<5>blockwire {command}: Terminated: stopping' in log, log
        finally:
            scenario.stop(proc)
            reader.join()
        # Nothing written in the node's directory; the kept index in the state directory.
        assert files_of(blocks) == before
        kept = files_of(cache)
        assert any(name.startswith('blockwire/index/') for name in kept), sorted(kept)
        if as_root:
            assert all(os.stat(os.path.join(cache, n)).st_uid == uid for n in kept)
        return messages
    finally:
        for dirpath, dirnames, filenames in os.walk(root):
            os.chmod(dirpath, 0o755)
        shutil.rmtree(root, ignore_errors=True)


def scenario_rest():
    def ask(port):
        with urllib.request.urlopen(f'http://127.0.0.1:{port}/rest/chaininfo.json', timeout=30) as r:
            assert json.load(r)['blocks'] == BLOCKS

    as_the_unit('rest', ask)


def scenario_serve():
    def ask(port):
        # A v1 peer's version (python-bitcoinlib makes it); serve answers with its own.
        import bitcoin
        from bitcoin.messages import msg_version
        bitcoin.SelectParams('regtest')
        with socket.create_connection(('127.0.0.1', port), timeout=30) as s:
            s.sendall(msg_version().to_bytes())
            header = b''
            while len(header) < 24:
                header += s.recv(24 - len(header))
            assert header[:4] == bytes.fromhex('fabfb5da') and header[4:16].rstrip(b'\0') == b'version', header

    as_the_unit('serve', ask)


def scenario_electrum():
    def ask(port):
        with socket.create_connection(('127.0.0.1', port), timeout=60) as s:
            s.sendall(b'{"id": 1, "method": "blockchain.headers.subscribe", "params": []}\n')
            answer = s.makefile().readline()
            assert json.loads(answer)['result']['height'] == BLOCKS, answer

    as_the_unit('electrum', ask)


def scenario_new_tip():
    """rest, electrum and serve each say a new tip in their STATUS: a directory fetched to height 7 from serve of a
    chain of 14, each server started on it with NOTIFY_SOCKET (READY: tip 7), then the directory fetched to the tip
    while they run (STATUS: tip 14)."""
    with scenario.fetching_from_serve(blockwire, make_chain_tool, work, 14, '--undo') as (fetch, target):
        subprocess.run(fetch + ['--max-blocks', '8'], check=True, capture_output=True)  # (genesis is one of the 8: tip 7)
        servers = []
        try:
            for command in ('rest', 'electrum', 'serve'):
                path = os.path.join(work, f'notify-{command}')
                notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                notify.bind(path)
                notify.settimeout(120)
                proc = subprocess.Popen([blockwire, command, target, '--listen', '127.0.0.1:0'], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, env={**os.environ, 'NOTIFY_SOCKET': path})
                servers.append((command, proc, notify))

            def wait_for(notify, line):
                seen = []
                while not any(line in m.split('\n') for m in seen):
                    seen.append(notify.recv(4096).decode())
                return seen

            for command, proc, notify in servers:
                ready = wait_for(notify, f'STATUS={target} (regtest): tip 7')
                assert any('READY=1' in m for m in ready), (command, ready)
            subprocess.run(fetch, check=True, capture_output=True)
            for command, proc, notify in servers:
                wait_for(notify, f'STATUS={target} (regtest): tip 14')
        finally:
            for command, proc, notify in servers:
                scenario.stop(proc)
                notify.close()


scenario.dispatch(which, globals())
