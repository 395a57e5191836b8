//! Every HTTP request the hub makes. A hub source is a stranger's server, so each request:
//! refuses hosts that resolve to loopback, private, link-local or otherwise internal
//! addresses (SSRF) on the first URL and on every redirect hop, unless
//! `HERMES_HUB_ALLOW_PRIVATE` allows them (`1`: all of them, for a LAN hub; or a
//! comma-separated list of `host:port` authorities, for tests that must still see a
//! redirect to another private address refused); cloud metadata addresses are refused
//! always. It follows at most five redirects by hand; ends after a
//! timeout; and stops reading a body past a size cap.

use std::collections::HashMap;
use std::io::Read;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::Url;

use super::HubError;

/// Env var that lets the hub reach private addresses (tests, LAN hubs).
pub const ALLOW_PRIVATE_VAR: &str = "HERMES_HUB_ALLOW_PRIVATE";
/// Largest body read from any one response (an archive, an index, a file).
pub const DEFAULT_MAX_BYTES: u64 = 16 << 20;
const MAX_REDIRECTS: usize = 5;
/// Cloud metadata names: refused even when private addresses are allowed.
const BLOCKED_HOSTS: [&str; 2] = ["metadata.google.internal", "metadata.goog"];

/// An HTTP client with the hub's guards.
#[derive(Clone)]
pub struct Net {
    client: reqwest::blocking::Client,
    /// One client per host name, pinned to the addresses that passed the check, so the
    /// connection goes where the check looked (no DNS rebinding between check and connect).
    pinned: Arc<Mutex<HashMap<String, reqwest::blocking::Client>>>,
    timeout: Duration,
    allow_private: AllowPrivate,
    max_bytes: u64,
}

/// Which private addresses may be reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllowPrivate {
    None,
    All,
    /// `host:port` authorities.
    Only(Vec<String>),
}

impl AllowPrivate {
    pub fn from_env() -> AllowPrivate {
        match std::env::var(ALLOW_PRIVATE_VAR) {
            Ok(v) if v.trim() == "1" => AllowPrivate::All,
            Ok(v) if !v.trim().is_empty() && v.trim() != "0" => AllowPrivate::Only(
                v.split(',')
                    .map(|a| a.trim().to_ascii_lowercase())
                    .filter(|a| !a.is_empty())
                    .collect(),
            ),
            _ => AllowPrivate::None,
        }
    }

    fn allows(&self, url: &Url) -> bool {
        match self {
            AllowPrivate::None => false,
            AllowPrivate::All => true,
            AllowPrivate::Only(list) => {
                let authority = format!(
                    "{}:{}",
                    url.host_str().unwrap_or_default().to_ascii_lowercase(),
                    url.port_or_known_default().unwrap_or(0)
                );
                list.contains(&authority)
            }
        }
    }
}

/// A response that passed the guards, its body read in full.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    /// The URL that answered (after redirects).
    pub url: String,
    pub headers: reqwest::header::HeaderMap,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    pub fn json(&self) -> Result<serde_json::Value, HubError> {
        serde_json::from_slice(&self.body)
            .map_err(|e| HubError::invalid(format!("{}: not JSON ({e})", self.url)))
    }

    pub fn text(&self) -> Result<String, HubError> {
        String::from_utf8(self.body.clone())
            .map_err(|_| HubError::invalid(format!("{}: not UTF-8 text", self.url)))
    }
}

impl Net {
    /// A client whose every request ends within `timeout`; private addresses as
    /// `HERMES_HUB_ALLOW_PRIVATE` allows.
    pub fn new(timeout: Duration) -> Result<Net, HubError> {
        Net::with(timeout, AllowPrivate::from_env(), DEFAULT_MAX_BYTES)
    }

    pub fn with(
        timeout: Duration,
        allow_private: AllowPrivate,
        max_bytes: u64,
    ) -> Result<Net, HubError> {
        Ok(Net {
            client: build(timeout, None)?,
            pinned: Arc::new(Mutex::new(HashMap::new())),
            timeout,
            allow_private,
            max_bytes,
        })
    }

    /// The client for `url`: the shared one for an IP literal, else the host's pinned one.
    fn client_for(
        &self,
        url: &Url,
        addrs: Option<Vec<SocketAddr>>,
    ) -> Result<reqwest::blocking::Client, HubError> {
        let (Some(host), Some(addrs)) = (url.host_str(), addrs) else {
            return Ok(self.client.clone());
        };
        let mut pinned = self.pinned.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(client) = pinned.get(host) {
            return Ok(client.clone());
        }
        let client = build(self.timeout, Some((host, &addrs)))?;
        pinned.insert(host.to_string(), client.clone());
        Ok(client)
    }

    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// GET `url` with `headers`, following redirects; any status is returned, not an error.
    pub fn get(&self, url: &str, headers: &[(&str, String)]) -> Result<Response, HubError> {
        let mut current =
            Url::parse(url).map_err(|e| HubError::invalid(format!("{url}: not a URL ({e})")))?;
        for _ in 0..=MAX_REDIRECTS {
            let addrs = self.check(&current)?;
            let client = self.client_for(&current, addrs)?;
            let mut request = client.get(current.clone());
            for (name, value) in headers {
                request = request.header(*name, value);
            }
            let response = request.send().map_err(|e| failure(&current, &e))?;
            let status = response.status().as_u16();
            if matches!(status, 301 | 302 | 303 | 307 | 308) {
                let location = response
                    .headers()
                    .get("location")
                    .and_then(|v| v.to_str().ok())
                    .ok_or_else(|| HubError::Network {
                        url: current.to_string(),
                        detail: format!("HTTP {status} without a Location"),
                    })?;
                current = current.join(location).map_err(|e| {
                    HubError::invalid(format!("{current}: bad redirect {location:?} ({e})"))
                })?;
                continue;
            }
            let final_url = current.to_string();
            if let Some(length) = response.content_length()
                && length > self.max_bytes
            {
                return Err(HubError::TooLarge {
                    what: final_url,
                    limit: self.max_bytes,
                });
            }
            let headers = response.headers().clone();
            let mut body = Vec::new();
            response
                .take(self.max_bytes + 1)
                .read_to_end(&mut body)
                .map_err(|e| {
                    if e.kind() == std::io::ErrorKind::TimedOut
                        || e.to_string().contains("timed out")
                    {
                        HubError::TimedOut {
                            url: final_url.clone(),
                        }
                    } else {
                        HubError::Network {
                            url: final_url.clone(),
                            detail: e.to_string(),
                        }
                    }
                })?;
            if body.len() as u64 > self.max_bytes {
                return Err(HubError::TooLarge {
                    what: final_url,
                    limit: self.max_bytes,
                });
            }
            return Ok(Response {
                status,
                url: final_url,
                headers,
                body,
            });
        }
        Err(HubError::Network {
            url: url.to_string(),
            detail: format!("more than {MAX_REDIRECTS} redirects"),
        })
    }

    /// The SSRF guard for one URL; for a host name, the addresses it resolved to (each one
    /// checked).
    fn check(&self, url: &Url) -> Result<Option<Vec<SocketAddr>>, HubError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(HubError::refused(format!(
                "refusing {url}: only http and https URLs are fetched"
            )));
        }
        let host = url
            .host_str()
            .ok_or_else(|| HubError::invalid(format!("{url}: no host")))?;
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let lower = bare.to_ascii_lowercase();
        if BLOCKED_HOSTS.contains(&lower.trim_end_matches('.')) {
            return Err(private(url, host, "cloud metadata"));
        }
        let port = url.port_or_known_default().unwrap_or(80);
        let (ips, resolved): (Vec<IpAddr>, Option<Vec<SocketAddr>>) = match bare.parse::<IpAddr>() {
            Ok(ip) => (vec![ip], None),
            Err(_) => {
                let addrs: Vec<SocketAddr> = (bare, port)
                    .to_socket_addrs()
                    .map_err(|e| HubError::Network {
                        url: url.to_string(),
                        detail: format!("cannot resolve {host}: {e}"),
                    })?
                    .collect();
                (addrs.iter().map(SocketAddr::ip).collect(), Some(addrs))
            }
        };
        let allowed = self.allow_private.allows(url);
        for ip in ips {
            if is_metadata(ip) || (!allowed && is_internal(ip)) {
                return Err(private(url, host, &ip.to_string()));
            }
        }
        Ok(resolved)
    }
}

/// The reqwest + rustls blocking client the project uses (as lib/llm/http.rs builds it),
/// with redirects left to us so each hop is checked; `pin` fixes a host's addresses.
fn build(
    timeout: Duration,
    pin: Option<(&str, &[SocketAddr])>,
) -> Result<reqwest::blocking::Client, HubError> {
    let mut builder = reqwest::blocking::Client::builder()
        .connect_timeout(timeout)
        .timeout(timeout)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("hermes-loop/", env!("CARGO_PKG_VERSION")));
    if let Some((host, addrs)) = pin {
        builder = builder.resolve_to_addrs(host, addrs);
    }
    builder.build().map_err(|e| HubError::Network {
        url: String::new(),
        detail: e.to_string(),
    })
}

fn private(url: &Url, host: &str, ip: &str) -> HubError {
    HubError::Private {
        url: url.to_string(),
        host: host.to_string(),
        ip: ip.to_string(),
    }
}

/// A failed request: timed out, or the error and its causes on one line.
fn failure(url: &Url, e: &reqwest::Error) -> HubError {
    if e.is_timeout() {
        return HubError::TimedOut {
            url: url.to_string(),
        };
    }
    HubError::Network {
        url: url.to_string(),
        detail: describe(e),
    }
}

fn describe(e: &reqwest::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

fn is_metadata(ip: IpAddr) -> bool {
    ip == IpAddr::V4(Ipv4Addr::new(169, 254, 169, 254))
}

/// Loopback, private, link-local, shared (CGNAT), unspecified, broadcast, multicast,
/// documentation and the IPv6 equivalents (including IPv4-mapped addresses).
pub fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_internal_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_internal_v4(v4);
            }
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || v6 == Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0)
        }
    }
}

fn is_internal_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b))
        || (a == 198 && (b == 18 || b == 19))
        || a >= 240
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_addresses() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
        ] {
            let ip: IpAddr = ip.parse().unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
            assert!(is_internal(ip), "{ip} is internal");
        }
        for ip in ["8.8.8.8", "140.82.112.3", "2606:4700::1111"] {
            let ip: IpAddr = ip.parse().unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
            assert!(!is_internal(ip), "{ip} is public");
        }
    }

    #[test]
    fn loopback_is_refused_without_the_override() {
        let Ok(net) = Net::with(Duration::from_secs(1), AllowPrivate::None, 1024) else {
            panic!("client")
        };
        let err = net.get("http://127.0.0.1:9/x", &[]);
        assert!(matches!(err, Err(HubError::Private { .. })), "{err:?}");
        // A name is resolved and its addresses checked.
        let err = net.get("http://localhost:9/x", &[]);
        assert!(matches!(err, Err(HubError::Private { .. })), "{err:?}");
        let err = net.get("file:///etc/passwd", &[]);
        assert!(matches!(err, Err(HubError::Refused(_))), "{err:?}");
    }
}
