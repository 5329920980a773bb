"""The results store: a Parquet dataset with one row per run, queried with DuckDB.

A store is a directory of Parquet files, ``part-*.parquet``. Each file holds
the rows of runs that finished together and is written under a temporary
name in ``DIR/.tmp/`` and then renamed into place, so a reader (or a sweep
killed half-way) never sees a partial file. Nothing is ever rewritten: a row
is appended once, when its run finishes. Writers take ``DIR/.lock`` (the
`filelock` library) and leave out rows whose run id is already stored, so
two sweeps into one store never write a run twice.

Reading never moves or deletes anything: a part file that cannot be read
now (a failed allocation, a file that is not a regular file, a foreign or
corrupt one) is left out of that read with a warning naming it. Only a
writer, holding the lock, sets a file aside into ``DIR/.quarantine/``, and
only one proven not to be a results file by checks that need no memory to
speak of: no Parquet magic bytes at both ends (truncated, empty, junk), or
a Parquet schema without a results file's columns.

A row holds, flat, everything needed to find and reproduce a run:

    run_id          config hash: sha256 of the fully resolved, validated
                    scenario (every parameter in base units, the seed
                    included) and the engine version
    scenario        the scenario it was resolved from (name, path or "<dict>")
    name            what the caller called the run (a paper run's name, or
                    the swept values), for reading only
    seed, engine_version
    every parameter, as dotted keys in the engine's base units
                    (ps, B, Mbps, MHz, MB/s; lists as JSON text)
    every metric of `packetpath.metrics`, plus sim.events and sim.packets
    report          the whole report as JSON (per-NIC metrics included)
    wall_s          wall-clock seconds the simulation took
    finished_at     when it finished (UTC)

In SQL, dotted columns are quoted: ``SELECT "traffic.size",
throughput_gbps FROM runs``. The view ``runs`` holds one row per run id;
``every_row`` holds every stored row, duplicates from older stores included.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import uuid
import warnings
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from packetpath import _engine, metrics, schema
from packetpath.errors import ConfigError

ENGINE_VERSION: str = _engine.__version__

# Report values kept as columns beyond the metrics table.
SIM_COLUMNS = ("sim.events", "sim.packets", "sim.sim_time_ps")
BOTTLENECK_COLUMNS = ("bottleneck.resource", "bottleneck.next")
META_COLUMNS = ("run_id", "scenario", "name", "seed", "engine_version")
TAIL_COLUMNS = ("report", "wall_s", "finished_at")


ENGINE_BUILD: str = getattr(_engine, "__build__", "")
"""A digest of the engine's model sources (see crates/py/build.rs): a rebuilt
engine whose model changed at the same version is another engine."""


def config_hash(config: Mapping[str, Any], engine_version: str = ENGINE_VERSION) -> str:
    """The identity of a run: its normalised config (seed included), the
    contents of every file it reads (by SHA-256) and the engine's version and build."""
    files = {key: file_digest(config[key]) for key in schema.FILES if config.get(key)}
    text = json.dumps({"config": dict(config), "engine": engine_version, "build": ENGINE_BUILD, "files": files},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def file_digest(path: str) -> str:
    """SHA-256 of a file's contents; a file that cannot be read has none (the run will say why)."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError as e:
        return f"unreadable: {e.strerror}"
    return h.hexdigest()


def _arrow_schema():
    import pyarrow as pa

    fields = [pa.field(c, pa.string()) for c in META_COLUMNS if c != "seed"]
    fields.insert(3, pa.field("seed", pa.int64()))
    for d in schema.definitions():
        kind = d["kind"]
        if kind == "int":
            t = pa.int64()
        elif kind == "float":
            t = pa.float64()
        elif kind == "bool":
            t = pa.bool_()
        else:  # choices, text, lists (as JSON)
            t = pa.string()
        # the base unit the value is stored in travels with the column (Parquet field metadata)
        fields.append(pa.field(d["key"], t, metadata={"unit": d["base_unit"]} if d["base_unit"] else None))
    fields += [pa.field(m.path, pa.float64(), metadata={"unit": m.unit} if m.unit else None) for m in metrics.METRICS]
    fields += [pa.field(c, pa.int64()) for c in SIM_COLUMNS]
    fields += [pa.field(c, pa.string()) for c in BOTTLENECK_COLUMNS]
    fields += [pa.field("report", pa.string()), pa.field("wall_s", pa.float64())]
    fields.append(pa.field("finished_at", pa.timestamp("ms", tz="UTC")))
    return pa.schema(fields)


def make_row(
    run_id: str, scenario: str, name: str, config: Mapping[str, Any], report: Mapping[str, Any], wall_s: float
) -> dict[str, Any]:
    """One store row for a finished run."""
    row: dict[str, Any] = {
        "run_id": run_id,
        "scenario": scenario,
        "name": name,
        "seed": int(config["sim.seed"]),
        "engine_version": ENGINE_VERSION,
    }
    for d in schema.definitions():
        value = config.get(d["key"])
        row[d["key"]] = json.dumps(value) if isinstance(value, list) else value
    for m in metrics.METRICS:
        value = metrics.value(dict(report), m.path)
        row[m.path] = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    for c in SIM_COLUMNS:
        row[c] = metrics.value(dict(report), c)
    for c in BOTTLENECK_COLUMNS:  # what bounds the run (packet runs)
        value = metrics.value(dict(report), c)
        row[c] = value if isinstance(value, str) else None
    row["report"] = json.dumps(report, sort_keys=True)
    row["wall_s"] = float(wall_s)
    row["finished_at"] = datetime.now(UTC)
    return row


def writable_folder(path: str | os.PathLike, what: str, option: str) -> Path:
    """Refuse, before anything runs, a folder results cannot be written to:
    empty text, a file, a filesystem root, or one this process may not write
    (probed by a file written and removed where the folder is or will be)."""
    if not os.fspath(path).strip():
        raise ConfigError(f"{option} '': empty; give a folder")
    folder = Path(path).absolute()
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"{what}: not a directory; give a folder with {option}")
    if folder.parent == folder:
        raise ConfigError(f"{what}: a filesystem root; give a folder of its own with {option}")
    where = next((p for p in (folder, *folder.parents) if p.exists()), Path("."))
    try:
        probe = where / f".packetpath-probe-{uuid.uuid4().hex[:8]}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise ConfigError(f"{what}: not writable ({e.strerror}); check its permissions or use another {option}") from None
    return folder


MAX_QUERY_ROWS = 10_000_000
"""The most rows a query returns: more is a ConfigError, not a frame that fills the memory."""


class StoreWarning(UserWarning):
    """A store file was set aside (quarantined); the store stays usable."""


class Store:
    """A results directory (created on the first write, not before)."""

    def __init__(self, path: str | os.PathLike):
        if not isinstance(path, (str, os.PathLike)) or not os.fspath(path).strip():
            raise ConfigError(f"store = {path!r}: expected the path of a results folder")
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise ConfigError(f"store {self.path}: not a directory")
        # Part files already read, with their run ids and engine versions: a
        # part is never rewritten, so a lookup reads only the parts that hold
        # the runs wanted, however many parts the store has.
        self._good: dict[str, tuple[frozenset[str], frozenset[str]]] = {}

    @classmethod
    def existing(cls, path: str | os.PathLike) -> Store:
        """A store to read: a path that does not exist is a ConfigError, not an empty store."""
        store = cls(path)
        if not store.path.is_dir():
            raise ConfigError(f"store {store.path}: no such directory (a sweep with --store {store.path} creates it)")
        return store

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    def files(self, repair: bool = False) -> list[Path]:
        """The readable part files. One that cannot be read is left out with a
        warning; with ``repair`` (a writer, holding the lock) one proven not to
        be a results file is moved to ``.quarantine/``."""
        parts = sorted(self.path.glob("part-*.parquet")) if self.path.is_dir() else []
        return [f for f in parts if f.name in self._good or self._readable(f, repair)]

    def _readable(self, part: Path, repair: bool) -> bool:
        import pyarrow.parquet as pq

        try:
            st = os.lstat(part)
            if not stat.S_ISREG(st.st_mode):  # a FIFO or a device would block or never end: never opened
                return self._leave_out(part, "not a regular file", proven=False, repair=repair)
            with open(part, "rb") as f:
                head = f.read(4)
                f.seek(max(st.st_size - 4, 0))
                tail = f.read(4)
        except FileNotFoundError:  # a writer set it aside meanwhile
            return False
        except OSError as e:
            return self._leave_out(part, e.strerror or str(e), proven=False, repair=repair)
        if st.st_size < 12 or head != b"PAR1" or tail != b"PAR1":
            return self._leave_out(part, "not Parquet (truncated, empty or junk)", proven=True, repair=repair)
        try:  # one read of the footer: the schema, then the two index columns
            pf = pq.ParquetFile(part)
            names = set(pf.schema_arrow.names)
            missing = [c for c in (*META_COLUMNS, "report") if c not in names]
            index = None if missing else pf.read(columns=["run_id", "engine_version"])
        except FileNotFoundError:  # a writer set it aside meanwhile
            return False
        except Exception as e:  # pyarrow raises several types; a MemoryError proves nothing about the file
            return self._leave_out(part, " ".join(str(e).split())[:120] or type(e).__name__, proven=False, repair=repair)
        if missing:
            return self._leave_out(part, f"no column '{missing[0]}': not a packetpath results file", proven=True, repair=repair)
        self._good[part.name] = (frozenset(index.column("run_id").to_pylist()), frozenset(index.column("engine_version").to_pylist()))
        return True

    def _leave_out(self, part: Path, reason: str, proven: bool, repair: bool) -> bool:
        """Warn that ``part`` is left out of this read; a writer moves a file proven foreign or corrupt aside."""
        where = "left out of this read, not moved"
        if proven and repair:
            quarantine = self.path / ".quarantine"
            try:
                quarantine.mkdir(exist_ok=True)
                os.replace(part, quarantine / part.name)
                where = f"moved to {quarantine.name}/"
            except FileNotFoundError:
                return False
            except OSError as e:
                where = f"left in place ({quarantine.name}: {e.strerror or e})"
        warnings.warn(f"store {self.path}: {part.name} is not a readable results file ({reason}); {where}, every other row kept",
                      StoreWarning, stacklevel=4)
        return False

    # -- writing ---------------------------------------------------------------

    def append(self, rows: Sequence[Mapping[str, Any]]) -> Path | None:
        """Write the rows whose run id is not yet stored as one new Parquet file,
        atomically (temp name, then rename), holding the store's lock."""
        if not rows:
            return None
        import pyarrow as pa
        import pyarrow.parquet as pq
        from filelock import FileLock

        tmp_dir = self.path / ".tmp"
        tmp_dir.mkdir(parents=True, exist_ok=True)
        with FileLock(self.path / ".lock"):
            self.files(repair=True)  # the writer sets aside what is proven not to be a results file
            stored = {r["run_id"] for r in self.rows(r["run_id"] for r in rows)}
            fresh = list({r["run_id"]: dict(r) for r in rows if r["run_id"] not in stored}.values())
            if not fresh:
                return None
            table = pa.Table.from_pylist(fresh, schema=_arrow_schema())
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
            final = self.path / f"part-{stamp}-{uuid.uuid4().hex[:8]}.parquet"
            tmp = tmp_dir / final.name
            pq.write_table(table, tmp, compression="zstd")
            os.replace(tmp, final)
        return final

    def check_writable(self) -> None:
        """Refuse, before anything runs, a store this process cannot write (a
        read-only directory) or one written by a newer engine (its rows could
        not be told apart from stale ones, and its columns may differ)."""
        writable_folder(self.path, f"store {self.path}", "--store")
        newer = [v for v in self.engine_versions() if _version(v) > _version(ENGINE_VERSION)]
        if newer:
            raise ConfigError(
                f"store {self.path} was written by engine {max(newer, key=_version)}, newer than this engine "
                f"{ENGINE_VERSION}; upgrade packetpath or use another --store"
            )

    # -- reading ---------------------------------------------------------------

    def connect(self, files: list[Path] | None = None):
        """A DuckDB connection with the view ``runs`` over every stored row (or those of ``files``)."""
        import duckdb

        con = duckdb.connect()
        files = self.files() if files is None else files
        if files:
            # one row per run id, the first stored, whatever older versions of the store hold
            listing = ", ".join("'" + str(f).replace("'", "''") + "'" for f in files)
            con.execute(f"CREATE VIEW every_row AS SELECT * FROM read_parquet([{listing}], union_by_name = true)")
            con.execute("CREATE VIEW runs AS SELECT * FROM every_row "
                        "QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY finished_at) = 1")
        else:  # an empty store still has the columns
            import pyarrow as pa

            empty = pa.Table.from_pylist([], schema=_arrow_schema())
            con.register("_empty", empty)
            con.execute("CREATE VIEW every_row AS SELECT * FROM _empty")
            con.execute("CREATE VIEW runs AS SELECT * FROM _empty")
        return con

    def query(self, sql: str, max_rows: int = MAX_QUERY_ROWS):
        """Run SQL over the view ``runs``; returns a pandas DataFrame. Bad SQL is a
        ConfigError, and so is a result of more than ``max_rows`` rows (it is
        never built: a query that would fill the memory says so instead)."""
        import warnings

        import duckdb
        import pandas as pd

        if not isinstance(sql, str) or not sql.strip():
            raise ConfigError("query: empty; give SQL over the view runs, e.g. 'SELECT count(*) FROM runs'")
        con = self.connect()
        try:
            with warnings.catch_warnings():  # duckdb builds a wide frame column by column; harmless
                warnings.simplefilter("ignore", pd.errors.PerformanceWarning)
                rel = con.sql(sql)
                if rel is None:  # a statement, not a query: nothing to show
                    return pd.DataFrame()
                df = rel.limit(max_rows + 1).df()
            if len(df) > max_rows:
                raise ConfigError(f"query: more than {max_rows} rows; narrow it (WHERE, GROUP BY) or add LIMIT")
            return df
        except duckdb.Error as e:
            raise ConfigError(f"query failed: {str(e).splitlines()[0]}") from None
        finally:
            con.close()

    def engine_versions(self) -> list[str]:
        # every row, duplicates included: a newer engine's copy of a run must be seen
        return sorted({v for f in self.files() for v in self._good[f.name][1]})

    def rows(self, run_ids: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Stored rows (all, or those of the given run ids) as plain Python values; one per run id."""
        files = self.files()
        if run_ids is not None:
            run_ids = set(run_ids)
            files = [f for f in files if self._good[f.name][0] & run_ids]
            if not files:
                return []
        con = self.connect(files)
        try:
            if run_ids is None:
                return _pylist(con.sql("SELECT * FROM runs ORDER BY finished_at"))
            import pyarrow as pa

            con.register("_wanted", pa.table({"run_id": sorted(run_ids)}))
            return _pylist(
                con.sql(
                    "SELECT * FROM runs WHERE run_id IN (SELECT run_id FROM _wanted) "
                    "QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY finished_at) = 1"
                )
            )
        finally:
            con.close()


def _pylist(result) -> list[dict[str, Any]]:
    return result.to_arrow_table().to_pylist()


def frame(rows: Sequence[Mapping[str, Any]]):
    """Rows as a pandas DataFrame with the store's column types (the same for fresh and stored rows)."""
    import pyarrow as pa

    return pa.Table.from_pylist([dict(r) for r in rows], schema=_arrow_schema()).to_pandas()


def _version(text: str) -> tuple[int, ...]:
    parts = []
    for p in str(text).split("."):
        digits = "".join(ch for ch in p if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)
