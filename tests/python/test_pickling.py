"""The library's exceptions pickled (as Dask hands a task's failure to its caller, or multiprocessing a child's) come
back whole: the same class, text and arguments, and every attribute they carry: errno and strerror of a system's
IOFailure (an OSError's own fields, which pickling keeps only as arguments), code, category, condition, offset and
context. Each is a failure the library raised, not one made here."""

import copy
import errno
import os
import pickle

import pytest

import blockwire
from blockwire import _blockwire

ATTRIBUTES = ('code', 'category', 'condition', 'step', 'exit_status', 'offset', 'context', 'errno', 'strerror', 'args')


def raised(call):
    with pytest.raises(blockwire.Error) as caught:
        call()
    return caught.value


@pytest.fixture
def failures(tmp_path, data_dir, regtest_dir):
    """Each class's failure, by what raised it."""
    block = open(os.path.join(data_dir, 'block413567.raw'), 'rb').read()
    out = str(tmp_path / 'out')
    held = _blockwire.lock_export_output(out)
    found = {
        'truncated block (DataError)': raised(lambda: blockwire.decode_block(block[:5000])),
        'missing directory (IOFailure of the system)': raised(lambda: blockwire.open_directory(str(tmp_path / 'none'))),
        'held lock (IOFailure of the library)': raised(lambda: _blockwire.lock_export_output(out)),
        'another network (UsageError)': raised(
            lambda: blockwire.open_directory(os.path.join(regtest_dir, 'blocks'), 'mainnet')),
    }
    held.close()
    return found


def test_each_failure_is_what_it_says(failures, tmp_path):
    """What the round trips below compare: attributes set, the classes as documented (these could be wrong before
    any pickling)."""
    f = failures
    assert type(f['truncated block (DataError)']) is blockwire.DataError
    assert f['truncated block (DataError)'].offset == 5000
    system = f['missing directory (IOFailure of the system)']
    assert type(system) is blockwire.IOFailure and isinstance(system, OSError)
    assert system.errno == errno.ENOENT and system.strerror.endswith(os.strerror(errno.ENOENT))
    assert str(system) == f'[Errno {errno.ENOENT}] {system.strerror}'
    assert str(tmp_path / 'none') in system.context
    library = f['held lock (IOFailure of the library)']
    assert type(library) is blockwire.IOFailure and library.errno is None and library.category == 'blockwire.io'
    assert type(f['another network (UsageError)']) is blockwire.UsageError
    assert {e.condition for e in f.values()} == {'bad_data', 'io', 'usage'}


@pytest.mark.parametrize('how', ['pickle', 'pickle protocol 0', 'deepcopy'])
def test_pickled_failures_come_back_whole(failures, how):
    for name, e in failures.items():
        if how == 'pickle':
            back = pickle.loads(pickle.dumps(e, pickle.HIGHEST_PROTOCOL))
        elif how == 'pickle protocol 0':
            back = pickle.loads(pickle.dumps(e, 0))
        else:
            back = copy.deepcopy(e)
        assert type(back) is type(e), name
        assert str(back) == str(e), name
        for attribute in ATTRIBUTES:
            assert getattr(back, attribute, 'missing') == getattr(e, attribute, 'missing'), (name, attribute)
        # Caught as the original would be.
        assert isinstance(back, blockwire.Error) and (isinstance(back, OSError) == isinstance(e, OSError)), name
