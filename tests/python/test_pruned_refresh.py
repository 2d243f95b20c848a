"""A Directory whose blocks directory `blockwire prune` prunes while it is open: refresh() sees it (the blk files
gone) and the Directory answers as one opened afresh: the prune height, and a pruned block's error, not an
IOFailure for a missing file."""

import os
import subprocess

import pytest

import blockwire

COMMAND = os.environ.get('BLOCKWIRE_COMMAND')
MAKE_CHAIN = os.environ.get('BLOCKWIRE_MAKE_CHAIN')


@pytest.fixture()
def prunable(tmp_path, monkeypatch):
    if not COMMAND or not MAKE_CHAIN:
        pytest.fail('BLOCKWIRE_COMMAND and BLOCKWIRE_MAKE_CHAIN must name the blockwire and make_chain binaries', pytrace=False)
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))
    directory = tmp_path / 'blocks'
    subprocess.run([MAKE_CHAIN, str(directory), '700', '--file-size', '20000'], check=True, capture_output=True)
    return str(directory)


def pruned_failure(d, height):
    with pytest.raises(blockwire.Error) as caught:
        d.block(height)
    return type(caught.value), str(caught.value)


def test_refresh_after_prune_answers_as_a_fresh_open(prunable):
    d = blockwire.open_directory(prunable, network='regtest')
    before = d.block(5)
    assert len(d) == 701
    pruned = subprocess.run([COMMAND, 'prune', prunable], capture_output=True, text=True)
    assert pruned.returncode == 0, pruned.stderr
    assert d.refresh() is False  # the tip did not move
    fresh = blockwire.open_directory(prunable, network='regtest')
    assert len(d) == len(fresh) == 701
    failure = pruned_failure(d, 5)
    assert failure == pruned_failure(fresh, 5)
    assert failure[0] is not blockwire.IOFailure and 'pruned' in failure[1], failure
    assert d.block(700).hash == fresh.block(700).hash
    assert before.hash == fresh.block_hash(5)
