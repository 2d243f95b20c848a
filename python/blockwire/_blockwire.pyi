# Types of blockwire's extension module (python/src), for editors and type
# checkers. The package (blockwire/__init__.py) re-exports all of it.
from __future__ import annotations

from typing import Any, Callable, Iterator, Literal, Optional, TypedDict, Union, final

_Bytes = Union[bytes, bytearray, memoryview]
_Network = str
"""A network's name: "mainnet" (or "main"), "testnet3" (or "test"), "testnet4", "signet", "regtest"."""

class Error(Exception):
    """A failure of the library: its message as the C++ library says it."""
    code: int
    """The error code's value in its category (stable: each means one thing; docs/api.md lists them)."""
    category: str
    """The layer that failed, e.g. "blockwire.codec", "blockwire.io", "system"."""
    condition: Optional[str]
    """"io", "bad_data", "usage" or "peer": what kind of failure it is (the class says it too), as the library reads it;
    None for a code of no condition."""
    step: Optional[str]
    """Which step of a longer piece of work failed, as "category:step" (e.g. "blockwire.directory.open_step:reading the
    key"); None when the call has no steps."""
    exit_status: int
    """The exit status the blockwire command ends with for this failure: 1 for bad data, 2 for the rest."""
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
    @property
    def txid(self) -> str: ...
    @property
    def vout(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    def __iter__(self) -> Iterator[Union[str, int]]: ...

class Input:
    @property
    def prevout(self) -> OutPoint: ...
    @property
    def script_sig(self) -> bytes: ...
    @property
    def witness(self) -> list[bytes]: ...
    @property
    def sequence(self) -> int: ...

class Output:
    @property
    def value(self) -> int:
        """In satoshis."""
    @property
    def script_pubkey(self) -> bytes: ...
    @property
    def type(self) -> str:
        """Core's name of the script's type: "pubkeyhash", "witness_v1_taproot", "nonstandard", ..."""
    def address(self, network: _Network = "mainnet") -> Optional[str]: ...

@final
class Transaction:
    """A transaction read in place from its bytes."""
    @property
    def txid(self) -> str: ...
    @property
    def wtxid(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def lock_time(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def vsize(self) -> int: ...
    @property
    def weight(self) -> int: ...
    @property
    def inputs(self) -> tuple[Input, ...]:
        """Made at the first reading, then the same tuple."""
    @property
    def outputs(self) -> tuple[Output, ...]:
        """Made at the first reading, then the same tuple."""
    def is_coinbase(self) -> bool: ...
    def has_witness(self) -> bool: ...
    def encode(self) -> bytes: ...
    def to_json(self, network: _Network = "mainnet") -> dict[str, Any]:
        """Core's decoderawtransaction object (amounts as Decimal)."""

class BlockHeader:
    @property
    def hash(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def prev_block(self) -> str: ...
    @property
    def merkle_root(self) -> str: ...
    @property
    def time(self) -> int: ...
    @property
    def bits(self) -> int: ...
    @property
    def nonce(self) -> int: ...
    def encode(self) -> bytes: ...

class Transactions:
    """A block's transactions, each made when it is asked for (negative indexes count from the end)."""
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Transaction: ...
    def __iter__(self) -> Iterator[Transaction]: ...

class Block:
    """A block read from its bytes; memoryview(block) gives them without a copy."""
    @property
    def hash(self) -> str: ...
    @property
    def header(self) -> BlockHeader: ...
    @property
    def transactions(self) -> Transactions: ...
    @property
    def size(self) -> int: ...
    @property
    def weight(self) -> int: ...
    def txids(self) -> list[str]: ...
    def encode(self) -> bytes: ...

class SpentCoin:
    """A coin an input spent, as the rev files keep it."""
    @property
    def height(self) -> int: ...
    @property
    def coinbase(self) -> bool: ...
    @property
    def value(self) -> int: ...
    @property
    def script_pubkey(self) -> bytes: ...

@final
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
    n_fields: int
    n_sequence_fields: int
    n_unnamed_fields: int
    __match_args__ = ("txid", "vout", "height", "coinbase", "value", "script_pubkey")

class UtxoSetInfo:
    @property
    def best_block(self) -> str: ...
    @property
    def transactions(self) -> int: ...
    @property
    def txouts(self) -> int: ...
    @property
    def bogosize(self) -> int: ...
    @property
    def total_amount(self) -> Optional[int]:
        """In satoshis; None when the sum leaves the money range (Core says nothing then)."""
    @property
    def hash_serialized_3(self) -> str: ...

class Coins(Iterator[Coin]):
    """One thread at a time: another thread's next() meanwhile raises ValueError, as a generator's does."""
    @property
    def best_block(self) -> Optional[str]: ...
    def __iter__(self) -> Coins: ...
    def __next__(self) -> Coin: ...

class Directory:
    @property
    def path(self) -> str: ...
    @property
    def network(self) -> _Network: ...
    @property
    def prune_height(self) -> int: ...
    @property
    def has_undo(self) -> bool: ...
    @property
    def damaged(self) -> bool:
        """Damage was found while opening (a file or record that does not read): its chain may be cut short."""
    @property
    def notes(self) -> list[str]: ...
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

def decode_block(data: _Bytes) -> Block: ...
def decode_transaction(data: _Bytes) -> Transaction:
    """As Core's decoderawtransaction: read without witness data when it is no transaction with it."""
def decode_header(data: _Bytes) -> BlockHeader: ...
def open_directory(path: str, network: Optional[_Network] = None) -> Directory:
    """network None: the one its records' magic says; another than theirs is refused (UsageError), not an empty chain."""
def read_utxos(chainstate: str) -> Coins: ...
def utxo_set_info(chainstate: str) -> UtxoSetInfo: ...

# export's steps, for a caller that has the shards made elsewhere (blockwire.distributed).
class ExportOutput:
    """An export's OUT, locked for one export until close() or the end of a with block."""
    @property
    def path(self) -> str: ...
    def close(self) -> None: ...
    def __enter__(self) -> ExportOutput: ...
    def __exit__(self, *args: Any) -> None: ...

class _ShardOutcome(TypedDict):
    first: int
    last: int
    reached: bool
    """False: not begun (the run stopped first)."""
    skipped: bool
    made: bool
    problem: Optional[str]
    io_failure: bool
    transactions: int
    block_bytes: int

def lock_export_output(path: str) -> ExportOutput: ...
def plan_shards(directory: Directory, shard_blocks: int = 1000, from_height: int = 0, end: int = 0) -> list[tuple[int, int, str]]:
    """export's shards of heights [from_height, end) (end 0: to the tip): (first, last, the hash of the block at last)."""
def plan_chain_walk(directory: Directory, shown: str, from_height: int, count: int, align: int,
                    note: Callable[[str], object]) -> tuple[int, int]:
    """The heights (from, end) a command walking the best chain reads (from == end: nothing to read), after note(line)
    for each line it says first. Then DataError for blocks of no chain, UsageError for from_height past the tip."""
def export_summary(out: str, shards: int, made: int, skipped: int, failed: int, transactions: int, block_bytes: int,
                   removed: int, seconds: float, io_failed: bool, damaged: bool) -> tuple[str, int]:
    """The summary line and the exit status of an export that came to these counts, as the command says them."""
def shard_problem_line(first: int, last: int, why: str) -> str:
    """A shard not made, as the command says it: "shard FIRST-LAST not made: WHY"."""
def remove_stale_shards(directory: Directory, output: ExportOutput, shard_blocks: int = 1000) -> tuple[int, list[str]]:
    """What left the directory's chain removed from the locked output: (shards removed, what was said of them). An
    output holding shards of another size is refused (UsageError), nothing removed."""
def export_shard(directory: Directory, out: str, first: int, last: int, *, format: Literal["ndjson", "csv"] = "ndjson",
                 shard_blocks: int = 1000, compress: Literal["none", "zstd", "gzip"] = "none",
                 last_hash: Optional[str] = None) -> _ShardOutcome:
    """One shard made in out as blockwire export makes it, when the block at last is last_hash (when given); takes no
    lock (the caller of the export holds it)."""

class _UtxoExport(TypedDict):
    height: int
    folder: str
    parts: int
    best_block: str
    transactions: int
    txouts: int
    bogosize: int
    total_amount: Optional[int]
    hash_serialized_3: str

def export_utxos(chainstate: str, directory: Directory, out: str, *, format: Literal["ndjson", "csv"] = "ndjson",
                 compress: Literal["none", "zstd", "gzip"] = "none", part_coins: int = 1048576) -> _UtxoExport:
    """blockwire utxos --tables into out; takes no lock (the caller of the export holds it)."""
