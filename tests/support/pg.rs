//! A throwaway PostgreSQL cluster for the team-store tests: initdb into a temp directory,
//! the server on a Unix socket in it (no TCP port), stopped when dropped. As root the
//! server runs as the `postgres` system user (PostgreSQL refuses to run as root).
//!
//! PostgreSQL missing is a failure, never a skip: `.ci/run` installs it (`apt-get install
//! postgresql`), and a suite that silently skipped would look green without testing.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The role that creates the cluster (superuser).
pub const ADMIN: &str = "admin";

/// A running cluster.
pub struct Cluster {
    dir: tempfile::TempDir,
    bin: PathBuf,
    as_postgres: bool,
}

/// Where the server binaries are: `$HERMES_PG_BIN`, else the newest
/// `/usr/lib/postgresql/*/bin`, else `pg_config --bindir`.
pub fn bin_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("HERMES_PG_BIN") {
        return PathBuf::from(dir);
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    found.sort();
    if let Some((_, bin)) = found.pop() {
        return bin;
    }
    let out = Command::new("pg_config").arg("--bindir").output();
    match out {
        Ok(o) if o.status.success() => {
            PathBuf::from(String::from_utf8_lossy(&o.stdout).trim().to_string())
        }
        _ => panic!(
            "PostgreSQL server binaries not found (no /usr/lib/postgresql/*/bin, no pg_config): \
             install them with `apt-get install -y postgresql` (.ci/run does) or set HERMES_PG_BIN"
        ),
    }
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

impl Cluster {
    pub fn start() -> Cluster {
        let bin = bin_dir();
        assert!(
            bin.join("initdb").exists() && bin.join("pg_ctl").exists(),
            "no initdb/pg_ctl in {}: install PostgreSQL (`apt-get install -y postgresql`)",
            bin.display()
        );
        let dir = tempfile::Builder::new()
            .prefix("hermes-pg-")
            .tempdir()
            .expect("temp dir");
        let as_postgres = unsafe { libc::geteuid() } == 0;
        for sub in ["data", "sock"] {
            std::fs::create_dir(dir.path().join(sub)).expect("mkdir");
        }
        std::fs::write(dir.path().join("log"), "").expect("log file");
        if as_postgres {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
                .expect("chmod");
            for sub in ["data", "sock", "log"] {
                run(
                    Command::new("chown")
                        .arg("postgres")
                        .arg(dir.path().join(sub)),
                    "chown to postgres",
                );
            }
        }
        let cluster = Cluster {
            dir,
            bin,
            as_postgres,
        };
        run(
            cluster
                .command("initdb")
                .arg("-D")
                .arg(cluster.data())
                .args([
                    "-U",
                    ADMIN,
                    "-A",
                    "trust",
                    "-E",
                    "UTF8",
                    "--locale=C.UTF-8",
                    "-N",
                ]),
            "initdb",
        );
        let options = format!(
            "-k {} -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off",
            cluster.socket_dir().display()
        );
        run(
            cluster
                .command("pg_ctl")
                .arg("-D")
                .arg(cluster.data())
                .arg("-l")
                .arg(cluster.dir.path().join("log"))
                .args(["-w", "-o", &options, "start"]),
            "pg_ctl start",
        );
        cluster
    }

    fn command(&self, tool: &str) -> Command {
        let path = self.bin.join(tool);
        if self.as_postgres {
            let mut cmd = Command::new("runuser");
            cmd.args(["-u", "postgres", "--"]).arg(path);
            cmd
        } else {
            Command::new(path)
        }
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    pub fn socket_dir(&self) -> PathBuf {
        self.dir.path().join("sock")
    }

    /// The `key=value` address of the cluster for `user`.
    pub fn url(&self, user: &str) -> String {
        format!(
            "host={} port=5432 user={user} dbname=postgres",
            self.socket_dir().display()
        )
    }

    /// A superuser connection, for setup and for looking at what the store holds.
    pub fn admin(&self) -> postgres::Client {
        postgres::Client::connect(&self.url(ADMIN), postgres::NoTls).expect("connect as admin")
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self
            .command("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .args(["-m", "immediate", "-w", "stop"])
            .output();
    }
}
