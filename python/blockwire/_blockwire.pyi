# Types of blockwire's extension module (python/src), for editors and type
# checkers. The package (blockwire/__init__.py) re-exports all of it.
from __future__ import annotations

from typing import Any, Iterator, Literal, Optional, Union

Bytes = Union[bytes, bytearray, memoryview]
Network = str
"""A network's name: "mainnet" (or "main"), "testnet3" (or "test"), "testnet4", "signet", "regtest"."""

class Error(Exception):
    """A failure of the library: its message as the C++ library says it."""
    code: int
    """The error code's value in its category (stable: each means one thing; docs/api.md lists them)."""
    category: str
    """The layer that failed, e.g. "blockwire.codec", "blockwire.io", "system"."""
    condition: Optional[str]
    """"io", "bad_data", "usage" or "peer"."""
    offset: Optional[int]
    """The byte of the input at which decoding failed, when known."""
    context: str
    """What failed (a path, a block), outermost first; "" when nothing was said."""

class DataError(Error, ValueError):
    """The bytes are wrong: they do not decode, do not check, or are not there."""

class IOFailure(Error, OSError):
    """The system failed: a file, the disk, a lock another process holds (errno and strerror set for the system's errors)."""

class UsageError(Error, ValueError):
    """The caller asked the library for what cannot be. (A height outside the best chain is an IndexError.)"""

class OutPoint:
    txid: str
    vout: int
    def __eq__(self, other: object) -> bool: ...
    def __iter__(self) -> Iterator[Union[str, int]]: ...

class Input:
    prevout: OutPoint
    script_sig: bytes
    witness: list[bytes]
    sequence: int

class Output:
    value: int
    """In satoshis."""
    script_pubkey: bytes
    type: str
    """Core's name of the script's type: "pubkeyhash", "witness_v1_taproot", "nonstandard", ..."""
    def address(self, network: Network = "mainnet") -> Optional[str]: ...

class Transaction:
    txid: str
    wtxid: str
    version: int
    lock_time: int
    size: int
    vsize: int
    weight: int
    inputs: list[Input]
    outputs: list[Output]
    def is_coinbase(self) -> bool: ...
    def has_witness(self) -> bool: ...
    def encode(self) -> bytes: ...
    def to_json(self, network: Network = "mainnet") -> dict[str, Any]:
        """Core's decoderawtransaction object (amounts as Decimal)."""

class BlockHeader:
    hash: str
    version: int
    prev_block: str
    merkle_root: str
    time: int
    bits: int
    nonce: int
    def encode(self) -> bytes: ...

class Transactions:
    """A block's transactions, each made when it is asked for (negative indexes count from the end)."""
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Transaction: ...
    def __iter__(self) -> Iterator[Transaction]: ...

class Block:
    """A block read from its bytes; memoryview(block) gives them without a copy."""
    hash: str
    header: BlockHeader
    transactions: Transactions
    size: int
    weight: int
    def txids(self) -> list[str]: ...
    def encode(self) -> bytes: ...

class SpentCoin:
    """A coin an input spent, as the rev files keep it."""
    height: int
    coinbase: bool
    value: int
    script_pubkey: bytes

class Coin(tuple[str, int, int, bool, int, bytes]):
    """A coin of the UTXO set: a tuple whose items have names (a struct sequence, as os.stat_result)."""
    @property
    def txid(self) -> str: ...
    @property
    def vout(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def coinbase(self) -> bool: ...
    @property
    def value(self) -> int:
        """In satoshis."""
    @property
    def script_pubkey(self) -> bytes: ...

class UtxoSetInfo:
    best_block: str
    transactions: int
    txouts: int
    bogosize: int
    total_amount: Optional[int]
    """In satoshis; None when the sum leaves the money range (Core says nothing then)."""
    hash_serialized_3: str

class Coins(Iterator[Coin]):
    """One thread at a time: another thread's next() meanwhile raises ValueError, as a generator's does."""
    best_block: Optional[str]
    def __iter__(self) -> Coins: ...
    def __next__(self) -> Coin: ...

class Directory:
    path: str
    network: Network
    prune_height: int
    has_undo: bool
    notes: list[str]
    def __len__(self) -> int: ...
    def block_hash(self, height: int) -> str: ...
    def time(self, height: int) -> int:
        """The block's header time, from the index (nothing read)."""
    def header(self, height: int) -> BlockHeader: ...
    def block(self, height: int) -> Block: ...
    def undo(self, height: int) -> list[list[SpentCoin]]:
        """The coins each transaction's inputs spent (the coinbase's: none)."""
    def fee(self, height: int) -> Optional[int]:
        """The block's total fee in satoshis, from the rev files (None where a value leaves the money range)."""
    def blocks(self, start: int = 0, stop: Optional[int] = None) -> Iterator[Block]: ...
    def getblock(self, height: int, verbosity: int = 1) -> Any:
        """Core's getblock: hex at 0, else its object (amounts as Decimal)."""
    def rows(self, table: Literal["blocks", "transactions"], start: int = 0, stop: Optional[int] = None) -> Iterator[dict[str, Any]]:
        """export's NDJSON rows, as dicts, a block's at a time."""
    def table(self, table: Literal["blocks", "transactions", "inputs", "outputs"], start: int = 0, stop: Optional[int] = None) -> Any:
        """export's CSV table of the heights as a pandas DataFrame."""
    def refresh(self) -> bool: ...

def decode_block(data: Bytes) -> Block: ...
def decode_transaction(data: Bytes) -> Transaction:
    """As Core's decoderawtransaction: read without witness data when it is no transaction with it."""
def decode_header(data: Bytes) -> BlockHeader: ...
def open_directory(path: str, network: Optional[Network] = None) -> Directory: ...
def read_utxos(chainstate: str) -> Coins: ...
def utxo_set_info(chainstate: str) -> UtxoSetInfo: ...
