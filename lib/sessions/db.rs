//! One connection to `state.db`, opened the way Python Hermes opens it: WAL unless the file
//! cannot do WAL, foreign keys on, a 1 s busy timeout, and every write an explicit
//! `BEGIN IMMEDIATE` retried with 20-150 ms of random jitter when another writer holds the
//! lock (reference `recall` §1.1, §1.6, §7).
//!
//! A process holds one [`Db`] and never opens the file any other way while it is connected:
//! closing any descriptor of a SQLite file drops that process's POSIX locks on it, a known
//! cause of corruption in Python Hermes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, TransactionBehavior};

use super::error::{Error, Result};
use super::schema::SCHEMA_VERSION;

/// How the connection may touch the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// `mode=ro`: no DDL, no PRAGMA that writes, no write lock ever taken.
    ReadOnly,
    /// Reads and writes; the file must already exist (use [`Db::create`] to make one).
    ReadWrite,
}

/// How long to wait for another writer, and how often to try.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// `BEGIN IMMEDIATE` attempts before giving up.
    pub attempts: u32,
    /// SQLite's own busy timeout for each attempt.
    pub busy_timeout: Duration,
    /// Random sleep between attempts, so competing writers do not convoy.
    pub min_sleep: Duration,
    pub max_sleep: Duration,
}

impl Default for RetryPolicy {
    /// Python Hermes's values: 15 attempts, 1 s timeout, 20-150 ms jitter.
    fn default() -> RetryPolicy {
        RetryPolicy {
            attempts: 15,
            busy_timeout: Duration::from_millis(1000),
            min_sleep: Duration::from_millis(20),
            max_sleep: Duration::from_millis(150),
        }
    }
}

/// An open session store.
pub struct Db {
    conn: Connection,
    path: PathBuf,
    access: Access,
    retry: RetryPolicy,
    jitter: Jitter,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("path", &self.path)
            .field("access", &self.access)
            .finish_non_exhaustive()
    }
}

/// Whether `path`'s `-wal` file holds pages (then an immutable read would miss them).
fn has_pending_wal(path: &Path) -> bool {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0)
}

/// A path as the path part of an SQLite `file:` URI: `%`, `?` and `#` escaped.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
}

impl Db {
    /// Opens an existing store without changing its schema. Fails with [`Error::Missing`]
    /// when there is no file, [`Error::Corrupt`] when it is not a readable SQLite database
    /// and [`Error::NotSessionStore`] when it lacks the `sessions` or `messages` table.
    pub fn open(path: &Path, access: Access) -> Result<Db> {
        Db::open_with(path, access, RetryPolicy::default())
    }

    /// [`Db::open`] with a chosen retry policy.
    pub fn open_with(path: &Path, access: Access, retry: RetryPolicy) -> Result<Db> {
        if !path.exists() {
            return Err(Error::Missing(path.to_path_buf()));
        }
        let db = Db::connect(path, access, retry)?;
        for table in ["sessions", "messages"] {
            if !db.has_table(table)? {
                return Err(Error::NotSessionStore {
                    path: path.to_path_buf(),
                    table,
                });
            }
        }
        Ok(db)
    }

    /// Opens an existing store read-only, also where SQLite cannot open it so: a WAL-mode
    /// file in a directory nobody may write, with no `-shm` file beside it (SQLite must then
    /// create one even to read). There the file is read as immutable (no locks, no shared
    /// memory), which is right only while no `-wal` holds pages not yet in the file: with a
    /// non-empty `-wal` the read-only error stands.
    pub fn open_for_reading(path: &Path, retry: RetryPolicy) -> Result<Db> {
        match Db::open_with(path, Access::ReadOnly, retry) {
            Err(Error::ReadOnly { .. }) if !has_pending_wal(path) => {
                let db = Db::connect_immutable(path, retry)?;
                for table in ["sessions", "messages"] {
                    if !db.has_table(table)? {
                        return Err(Error::NotSessionStore {
                            path: path.to_path_buf(),
                            table,
                        });
                    }
                }
                Ok(db)
            }
            other => other,
        }
    }

    fn connect_immutable(path: &Path, retry: RetryPolicy) -> Result<Db> {
        let uri = format!("file:{}?immutable=1", uri_path(path));
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&uri, flags)
            .map_err(|e| Error::sql(path, format!("cannot open {}", path.display()), e))?;
        let db = Db {
            conn,
            path: path.to_path_buf(),
            access: Access::ReadOnly,
            retry,
            jitter: Jitter::seeded(),
        };
        db.conn
            .query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))
            .map_err(|e| db.err("reading the schema", e))?;
        Ok(db)
    }

    /// Opens the store read-write, creating the file (and its directory) when missing. The
    /// schema is not touched: [`super::migrate::ensure_schema`] does that.
    pub fn create(path: &Path, retry: RetryPolicy) -> Result<Db> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| Error::ReadOnly {
                path: dir.to_path_buf(),
                detail: e.to_string(),
            })?;
        }
        Db::connect(path, Access::ReadWrite, retry)
    }

    fn connect(path: &Path, access: Access, retry: RetryPolicy) -> Result<Db> {
        let flags = match access {
            Access::ReadOnly => OpenFlags::SQLITE_OPEN_READ_ONLY,
            Access::ReadWrite => OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
        } | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags)
            .map_err(|e| Error::sql(path, format!("cannot open {}", path.display()), e))?;
        let mut db = Db {
            conn,
            path: path.to_path_buf(),
            access,
            retry,
            jitter: Jitter::seeded(),
        };
        db.conn
            .busy_timeout(retry.busy_timeout)
            .map_err(|e| db.err("setting the busy timeout", e))?;
        // The first real read: a file that is not a database fails here, not later.
        db.conn
            .query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))
            .map_err(|e| db.err("reading the schema", e))?;
        if access == Access::ReadWrite {
            db.apply_wal()?;
            // Python's barrier on macOS, where fsync does not reach the platter.
            #[cfg(target_os = "macos")]
            db.conn
                .execute_batch("PRAGMA checkpoint_fullfsync=1; PRAGMA synchronous=FULL")
                .map_err(|e| db.err("setting the macOS sync barrier", e))?;
            db.conn
                .execute_batch("PRAGMA foreign_keys=ON")
                .map_err(|e| db.err("enabling foreign keys", e))?;
        }
        Ok(db)
    }

    /// WAL as Python sets it: kept when the file already says WAL, else switched on, else
    /// (a filesystem without shared memory: NFS, SMB, some FUSE) rollback journal `DELETE`.
    fn apply_wal(&mut self) -> Result<()> {
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .map_err(|e| self.err("reading the journal mode", e))?;
        if mode.eq_ignore_ascii_case("wal") {
            return Ok(());
        }
        match self
            .conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0))
        {
            Ok(_) => Ok(()),
            Err(e) => {
                let text = e.to_string().to_ascii_lowercase();
                if text.contains("locking protocol") || text.contains("not authorized") {
                    self.conn
                        .query_row("PRAGMA journal_mode=DELETE", [], |r| r.get::<_, String>(0))
                        .map(|_| ())
                        .map_err(|e| self.err("falling back to journal_mode=DELETE", e))
                } else {
                    Err(self.err("switching to WAL", e))
                }
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn access(&self) -> Access {
        self.access
    }

    /// The connection, for reads. Writes go through [`Db::write`].
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Classifies a SQLite error met while doing `context` on this database.
    pub fn err(&self, context: impl Into<String>, e: rusqlite::Error) -> Error {
        Error::sql(&self.path, context, e)
    }

    pub fn has_table(&self, name: &str) -> Result<bool> {
        self.conn
            .query_row(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [name],
                |_| Ok(()),
            )
            .optional()
            .map(|r| r.is_some())
            .map_err(|e| self.err("reading the schema", e))
    }

    /// `schema_version.version`, or `None` when the table is missing or empty.
    pub fn schema_version(&self) -> Result<Option<i64>> {
        if !self.has_table("schema_version")? {
            return Ok(None);
        }
        self.conn
            .query_row("SELECT version FROM schema_version LIMIT 1", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.err("reading schema_version", e))
    }

    /// Fails unless this database may be written by us: read-write and not newer than v22.
    pub fn require_writable_schema(&self) -> Result<()> {
        if let Some(found) = self.schema_version()?
            && found > SCHEMA_VERSION
        {
            return Err(Error::NewerSchema {
                path: self.path.clone(),
                found,
            });
        }
        Ok(())
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction and commits it. When another writer
    /// holds the lock (at `BEGIN`, during `body` or at `COMMIT`), everything is rolled back,
    /// we sleep a random 20-150 ms and run `body` again, up to the policy's attempts; so
    /// `body` must be safe to repeat (compute from its inputs, publish results only after
    /// this returns).
    pub fn write<T>(&mut self, mut body: impl FnMut(&Transaction<'_>) -> Result<T>) -> Result<T> {
        let attempts = self.retry.attempts.max(1);
        for attempt in 1..=attempts {
            match self.try_write(&mut body) {
                Err(e) if e.is_busy() => {
                    if attempt < attempts {
                        let pause = self
                            .jitter
                            .between(self.retry.min_sleep, self.retry.max_sleep);
                        std::thread::sleep(pause);
                    }
                }
                other => return other,
            }
        }
        Err(Error::Locked { attempts })
    }

    fn try_write<T>(&mut self, body: &mut impl FnMut(&Transaction<'_>) -> Result<T>) -> Result<T> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| Error::sql(&path, "starting a write transaction", e))?;
        let value = body(&tx)?;
        tx.commit()
            .map_err(|e| Error::sql(&path, "committing", e))?;
        Ok(value)
    }

    /// Starts a `BEGIN IMMEDIATE` transaction for a long write the caller streams into (ingest
    /// writes chunks into it as they are parsed) and commits with [`WriteGuard::commit`];
    /// dropping the guard rolls everything back. Only `BEGIN` is retried (with jitter, as
    /// [`Db::write`] does): once it succeeds we hold the write lock, and a later failure
    /// aborts the whole transaction, since its input is gone.
    pub fn begin_write(&mut self) -> Result<WriteGuard<'_>> {
        let attempts = self.retry.attempts.max(1);
        for attempt in 1..=attempts {
            match self.conn.execute_batch("BEGIN IMMEDIATE") {
                Ok(()) => {
                    return Ok(WriteGuard {
                        conn: &self.conn,
                        path: &self.path,
                        open: true,
                    });
                }
                Err(e) if super::error::is_busy(&e) => {
                    if attempt < attempts {
                        let pause = self
                            .jitter
                            .between(self.retry.min_sleep, self.retry.max_sleep);
                        std::thread::sleep(pause);
                    }
                }
                Err(e) => return Err(self.err("starting a write transaction", e)),
            }
        }
        Err(Error::Locked { attempts })
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)`, as Python's `close()` does; errors are ignored
    /// because another reader may legitimately keep the WAL alive.
    pub fn checkpoint(&self) {
        if self.access == Access::ReadWrite {
            let _ = self
                .conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
    }

    /// Checkpoints and closes.
    pub fn close(self) {
        self.checkpoint();
        drop(self.conn);
    }
}

/// An open write transaction (see [`Db::begin_write`]); rolled back unless committed.
pub struct WriteGuard<'a> {
    conn: &'a Connection,
    path: &'a Path,
    open: bool,
}

impl WriteGuard<'_> {
    /// Commits the transaction.
    pub fn commit(mut self) -> Result<()> {
        self.open = false;
        self.conn
            .execute_batch("COMMIT")
            .map_err(|e| Error::sql(self.path, "committing", e))
    }
}

impl std::ops::Deref for WriteGuard<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        self.conn
    }
}

impl Drop for WriteGuard<'_> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}

/// A tiny xorshift generator for retry jitter; it only has to differ between processes.
struct Jitter(u64);

impl Jitter {
    fn seeded() -> Jitter {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x9E37_79B9_7F4A_7C15);
        Jitter(nanos ^ (u64::from(std::process::id()) << 32) | 1)
    }

    fn between(&mut self, low: Duration, high: Duration) -> Duration {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        let span = high.saturating_sub(low).as_micros() as u64;
        low + Duration::from_micros(if span == 0 { 0 } else { self.0 % (span + 1) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_immutable_read_escapes_the_uri_and_sees_the_rows() {
        assert_eq!(uri_path(Path::new("/a b/c?d#e%f")), "/a b/c%3fd%23e%25f");
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("odd?#%name.db");
        let mut db = Db::create(&path, RetryPolicy::default()).expect("create");
        super::super::migrate::ensure_schema(&mut db).expect("schema");
        db.conn()
            .execute(
                "INSERT INTO sessions (id, source, started_at) VALUES ('s1', 'cli', 1)",
                [],
            )
            .expect("insert");
        drop(db);
        assert!(!has_pending_wal(&path));
        let db = Db::connect_immutable(&path, RetryPolicy::default()).expect("immutable");
        let id: String = db
            .conn()
            .query_row("SELECT id FROM sessions", [], |r| r.get(0))
            .expect("row");
        assert_eq!(id, "s1");
        assert_eq!(db.access(), Access::ReadOnly);
        let mut wal = path.clone().into_os_string();
        wal.push("-wal");
        std::fs::write(&wal, b"pages").expect("wal");
        assert!(has_pending_wal(&path));
    }

    #[test]
    fn jitter_stays_in_range() {
        let mut j = Jitter::seeded();
        for _ in 0..1000 {
            let d = j.between(Duration::from_millis(20), Duration::from_millis(150));
            assert!(d >= Duration::from_millis(20) && d <= Duration::from_millis(150));
        }
    }

    #[test]
    fn missing_file_is_missing_not_created() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("state.db");
        let err = Db::open(&path, Access::ReadWrite).expect_err("missing");
        assert!(matches!(err, Error::Missing(_)));
        assert!(!path.exists());
    }

    #[test]
    fn a_text_file_is_corrupt() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("state.db");
        std::fs::write(
            &path,
            "this is not a database, just some text that is long enough to fill a header page……"
                .repeat(100),
        )
        .expect("write");
        let err = Db::open(&path, Access::ReadOnly).expect_err("corrupt");
        assert!(matches!(err, Error::Corrupt { .. }), "{err:?}");
    }

    #[test]
    fn create_sets_wal_and_foreign_keys() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db =
            Db::create(&dir.path().join("sub/state.db"), RetryPolicy::default()).expect("create");
        let mode: String = db
            .conn()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .expect("mode");
        assert_eq!(mode, "wal");
        let fk: i64 = db
            .conn()
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .expect("fk");
        assert_eq!(fk, 1);
        let timeout: i64 = db
            .conn()
            .query_row("PRAGMA busy_timeout", [], |r| r.get(0))
            .expect("timeout");
        assert_eq!(timeout, 1000);
    }

    #[test]
    fn writing_through_a_read_only_connection_is_read_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("state.db");
        let mut db = Db::create(&path, RetryPolicy::default()).expect("create");
        crate::sessions::migrate::ensure_schema(&mut db).expect("schema");
        db.close();
        let mut ro = Db::open(&path, Access::ReadOnly).expect("open");
        let err = ro
            .write(|tx| {
                tx.execute_batch("INSERT INTO state_meta VALUES ('k', 'v')")
                    .map_err(|e| Error::sql(&path, "insert", e))
            })
            .expect_err("read-only");
        assert!(matches!(err, Error::ReadOnly { .. }), "{err:?}");
        assert!(err.hint().is_some_and(|h| h.contains("write access")));
    }

    #[test]
    fn a_held_lock_is_retried_then_reported() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("state.db");
        let policy = RetryPolicy {
            attempts: 3,
            busy_timeout: Duration::from_millis(10),
            min_sleep: Duration::from_millis(1),
            max_sleep: Duration::from_millis(2),
        };
        let mut db = Db::create(&path, policy).expect("create");
        db.write(|tx| {
            tx.execute_batch("CREATE TABLE t(x)")
                .map_err(|e| Error::sql(&path, "ddl", e))
        })
        .expect("ddl");
        let holder = Connection::open(&path).expect("second connection");
        holder
            .execute_batch("BEGIN IMMEDIATE; INSERT INTO t VALUES (1);")
            .expect("hold lock");
        let mut runs = 0;
        let err = db
            .write(|tx| {
                runs += 1;
                tx.execute("INSERT INTO t VALUES (2)", [])
                    .map_err(|e| Error::sql(&path, "insert", e))
            })
            .expect_err("locked");
        assert!(matches!(err, Error::Locked { attempts: 3 }), "{err:?}");
        assert_eq!(runs, 0, "the body never runs without the lock");
        holder.execute_batch("COMMIT").expect("release");
        db.write(|tx| {
            tx.execute("INSERT INTO t VALUES (3)", [])
                .map_err(|e| Error::sql(&path, "insert", e))
        })
        .expect("now it works");
        let n: i64 = db
            .conn()
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .expect("count");
        assert_eq!(n, 2);
    }
}
