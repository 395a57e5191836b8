//! Opening a connection to the team store: a URL (or `key=value` string) overlaid on the
//! usual `PG*` variables, TLS through rustls (webpki roots, plus `PGSSLROOTCERT`), a short
//! connect timeout so a store that is down fails a cron run quickly, and the session
//! settings every query here relies on.
//!
//! The password is only ever handed to the driver: [`Target`] is what messages print.

use std::time::Duration;

use postgres::config::{Host, SslMode};
use postgres::{Client, Config};

use super::error::{Error, Result};

/// Where a store is, for messages: `user@host:port/dbname`, never the password.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target(pub String);

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// How long a connection attempt may take before the store counts as down.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The store's address: `url` (empty: the `PG*` variables alone), with `env` read for what
/// the URL leaves out.
pub fn config(url: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Config> {
    let mut config: Config = if url.trim().is_empty() {
        Config::new()
    } else {
        url.parse()
            .map_err(|e: postgres::Error| Error::Address(redact_parse_error(&e)))?
    };
    if config.get_hosts().is_empty() {
        match env("PGHOST") {
            Some(hosts) => {
                for host in hosts.split(',') {
                    config.host(host);
                }
            }
            // libpq's default: the Debian socket directory when it exists.
            None if std::path::Path::new("/var/run/postgresql").is_dir() => {
                config.host_path("/var/run/postgresql");
            }
            None => {
                config.host("localhost");
            }
        }
    }
    if config.get_ports().is_empty()
        && let Some(port) = env("PGPORT")
    {
        let port: u16 = port
            .trim()
            .parse()
            .map_err(|_| Error::Address(format!("PGPORT {port:?} is not a port number")))?;
        config.port(port);
    }
    if config.get_user().is_none() {
        let user = env("PGUSER")
            .or_else(|| env("USER"))
            .ok_or_else(|| Error::Address("no user: set PGUSER or put one in the URL".into()))?;
        config.user(&user);
    }
    if config.get_password().is_none()
        && let Some(password) = env("PGPASSWORD")
    {
        config.password(password);
    }
    if config.get_dbname().is_none()
        && let Some(db) = env("PGDATABASE")
    {
        config.dbname(&db);
    }
    if !url.contains("sslmode")
        && let Some(mode) = env("PGSSLMODE")
    {
        config.ssl_mode(match mode.as_str() {
            "disable" => SslMode::Disable,
            "allow" | "prefer" => SslMode::Prefer,
            "require" | "verify-ca" | "verify-full" => SslMode::Require,
            other => return Err(Error::Address(format!("PGSSLMODE {other:?} is not known"))),
        });
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_application_name().is_none() {
        config.application_name("hermes-loop");
    }
    Ok(config)
}

/// The driver's parse errors can quote the input; keep only their kind.
fn redact_parse_error(e: &postgres::Error) -> String {
    let text = e.to_string();
    if text.contains('@') || text.contains("password") {
        "the URL does not parse (postgresql://USER@HOST:PORT/DB or key=value pairs)".into()
    } else {
        text
    }
}

/// `user@host:port/dbname` for messages.
pub fn target(config: &Config) -> Target {
    let user = config.get_user().unwrap_or("?");
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        Some(Host::Unix(p)) => p.display().to_string(),
        None => "?".into(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let db = config.get_dbname().unwrap_or(user);
    Target(format!("{user}@{host}:{port}/{db}"))
}

/// The rustls client configuration: ring, webpki roots, and `PGSSLROOTCERT` when set.
fn tls(env: &dyn Fn(&str) -> Option<String>) -> Result<tokio_postgres_rustls::MakeRustlsConnect> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(path) = env("PGSSLROOTCERT") {
        let pem = std::fs::read(&path).map_err(|e| Error::Tls(format!("{path}: {e}")))?;
        use rustls::pki_types::CertificateDer;
        use rustls::pki_types::pem::PemObject;
        for cert in CertificateDer::pem_slice_iter(&pem) {
            let cert = cert.map_err(|e| Error::Tls(format!("{path}: {e}")))?;
            roots
                .add(cert)
                .map_err(|e| Error::Tls(format!("{path}: {e}")))?;
        }
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Tls(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

/// An open connection and where it goes.
pub struct Store {
    pub client: Client,
    pub target: Target,
}

/// Connects. The full-text query is planned afresh on every call inside `hermes.search`
/// (dynamic SQL, so the plan sees how common the words are); every other statement is a
/// lookup by key, for which the server's default (a cached plan once it costs no more)
/// saves the planning: forcing custom plans here cost 0.7 ms of CPU a discover.
pub fn connect(url: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Store> {
    let config = config(url, env)?;
    let target = target(&config);
    let tls = tls(env)?;
    let client = config.connect(tls).map_err(|e| Error::Unreachable {
        target: target.0.clone(),
        reason: unreachable_reason(&e),
    })?;
    Ok(Store { client, target })
}

/// The driver's message for a failed connection, with its cause (which holds the useful
/// part: "Connection refused", "password authentication failed").
fn unreachable_reason(e: &postgres::Error) -> String {
    use std::error::Error as _;
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let part = s.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    text
}

/// The process environment, for [`connect`].
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn pg_variables_fill_what_the_url_leaves_out() {
        let vars = [
            ("PGHOST", "db.example"),
            ("PGPORT", "6543"),
            ("PGUSER", "alice"),
            ("PGPASSWORD", "s3cret"),
            ("PGDATABASE", "team"),
        ];
        let c = config("", &env(&vars)).expect("config");
        assert_eq!(target(&c).0, "alice@db.example:6543/team");
        assert_eq!(c.get_password(), Some(&b"s3cret"[..]));
        let c = config("postgresql://bob:pw@other:5433/x", &env(&vars)).expect("config");
        assert_eq!(target(&c).0, "bob@other:5433/x");
        assert_eq!(c.get_password(), Some(&b"pw"[..]));
    }

    #[test]
    fn tls_builds_from_the_webpki_roots_and_refuses_a_missing_ca_file() {
        assert!(tls(&env(&[])).is_ok());
        let missing = tls(&env(&[("PGSSLROOTCERT", "/nonexistent/ca.pem")]));
        let message = match missing {
            Err(e) => e.to_string(),
            Ok(_) => String::new(),
        };
        assert!(
            message.starts_with("team store TLS setup: /nonexistent/ca.pem: "),
            "{message}"
        );
    }

    #[test]
    fn the_target_never_shows_the_password() {
        let c = config("postgresql://carol:hunter2@h:1/d", &env(&[])).expect("config");
        assert!(!target(&c).0.contains("hunter2"));
        let bad = config("postgresql://carol:hunter2@h:notaport/d", &env(&[]));
        let message = match bad {
            Err(e) => e.to_string(),
            Ok(_) => String::new(),
        };
        assert!(!message.contains("hunter2"), "{message}");
        assert!(!message.is_empty());
    }
}
