"""blockwire: the Bitcoin wire format, a node's blocks directory, its UTXO set and export's tables, read in C++.

    import blockwire
    block = blockwire.decode_block(data)            # bytes, bytearray or memoryview
    d = blockwire.open_directory('~/.bitcoin/blocks')
    d.fee(len(d) - 1), d.getblock(0, 2), d.table('outputs', 800_000, 800_010)
    for coin in blockwire.read_utxos('~/.bitcoin/chainstate'): ...

Failures raise blockwire.Error (DataError for bytes that are wrong, IOFailure for the system's, UsageError for a call
that cannot be), with the library's text, code and, for decoding, the byte offset.
"""

from __future__ import annotations

import os as _os
from typing import Optional as _Optional
from typing import Union as _Union

from ._blockwire import (Block, BlockHeader, Coin, Coins, DataError, Directory, Error, Input, IOFailure, OutPoint, Output,
                         SpentCoin, Transaction, Transactions, UsageError, UtxoSetInfo, decode_block, decode_header,
                         decode_transaction)
from ._blockwire import open_directory as _open_directory
from ._blockwire import read_utxos as _read_utxos
from ._blockwire import utxo_set_info as _utxo_set_info

__all__ = ['Block', 'BlockHeader', 'Coin', 'Coins', 'DataError', 'Directory', 'Error', 'Input', 'IOFailure', 'OutPoint',
           'Output', 'SpentCoin', 'Transaction', 'Transactions', 'UsageError', 'UtxoSetInfo', 'decode_block',
           'decode_header', 'decode_transaction', 'open_directory', 'read_utxos', 'utxo_set_info']

_Path = _Union[str, '_os.PathLike[str]']  # what os.fspath takes, less bytes


def _path(path: _Path) -> str:
    return _os.path.expanduser(_os.fspath(path))


def open_directory(path: _Path, network: _Optional[str] = None) -> Directory:
    """A node's (or blockwire's) blocks directory, opened as the library opens it (`~` and os.PathLike taken)."""
    return _open_directory(_path(path), network)


def read_utxos(chainstate: _Path) -> Coins:
    """Every coin of a chainstate, streamed in key order (`~` and os.PathLike taken)."""
    return _read_utxos(_path(chainstate))


def utxo_set_info(chainstate: _Path) -> UtxoSetInfo:
    """gettxoutsetinfo's summary of a chainstate (`~` and os.PathLike taken)."""
    return _utxo_set_info(_path(chainstate))
