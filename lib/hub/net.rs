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
        AllowPrivate::parse(std::env::var(ALLOW_PRIVATE_VAR).ok().as_deref())
    }

    /// The setting a value of `HERMES_HUB_ALLOW_PRIVATE` gives (unset, empty or `0`: none).
    pub fn parse(value: Option<&str>) -> AllowPrivate {
        match value.map(str::trim) {
            Some("1") => AllowPrivate::All,
            Some(v) if !v.is_empty() && v != "0" => AllowPrivate::Only(
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
                    if read_timed_out(&e) {
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

/// Whether a body read failed for the timeout: the error says so itself (its kind or its
/// text), or an error it wraps does (reqwest reports a stalled body as "error decoding
/// response body" caused by a timeout).
fn read_timed_out(e: &std::io::Error) -> bool {
    if e.kind() == std::io::ErrorKind::TimedOut || e.to_string().contains("timed out") {
        return true;
    }
    let mut cause: Option<&(dyn std::error::Error + 'static)> = e
        .get_ref()
        .map(|inner| inner as &(dyn std::error::Error + 'static));
    while let Some(c) = cause {
        if c.downcast_ref::<reqwest::Error>()
            .is_some_and(reqwest::Error::is_timeout)
        {
            return true;
        }
        cause = c.source();
    }
    false
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

/// The cloud metadata services: 169.254.169.254 in any IPv6 spelling of it, and AWS's IPv6
/// endpoint `fd00:ec2::254`.
fn is_metadata(ip: IpAddr) -> bool {
    const V4: Ipv4Addr = Ipv4Addr::new(169, 254, 169, 254);
    match ip {
        IpAddr::V4(v4) => v4 == V4,
        IpAddr::V6(v6) => {
            v6.to_ipv4_mapped() == Some(V4)
                || v6 == Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254)
        }
    }
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
    // 0.0.0.0 (unspecified) is in 0.0.0.0/8 and the broadcast address in 240.0.0.0/4.
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
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

    /// Serves `responses` (raw HTTP, one per connection) on a loopback port; the handle gives
    /// back each request's head as received.
    fn serve(responses: Vec<String>) -> (u16, std::thread::JoinHandle<Vec<String>>) {
        use std::io::Write;
        let Ok(listener) = std::net::TcpListener::bind("127.0.0.1:0") else {
            panic!("bind")
        };
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        let handle = std::thread::spawn(move || {
            let mut heads = Vec::new();
            for response in responses {
                let Ok((mut stream, _)) = listener.accept() else {
                    break;
                };
                let mut got = Vec::new();
                let mut buf = [0u8; 4096];
                while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => got.extend_from_slice(&buf[..n]),
                    }
                }
                heads.push(String::from_utf8_lossy(&got).into_owned());
                let _ = stream.write_all(response.as_bytes());
            }
            heads
        });
        (port, handle)
    }

    fn reply(status: &str, headers: &[&str], body: &str) -> String {
        let mut text = format!("HTTP/1.1 {status}\r\nConnection: close\r\n");
        for h in headers {
            text.push_str(h);
            text.push_str("\r\n");
        }
        format!("{text}Content-Length: {}\r\n\r\n{body}", body.len())
    }

    /// A client that may reach only `127.0.0.1:port`, reading at most `max` bytes.
    fn net_for(port: u16, max: u64) -> Net {
        let allow = AllowPrivate::Only(vec![format!("127.0.0.1:{port}")]);
        match Net::with(Duration::from_secs(5), allow, max) {
            Ok(net) => net,
            Err(e) => panic!("client: {e}"),
        }
    }

    fn message<T: std::fmt::Debug>(r: Result<T, HubError>) -> String {
        match r {
            Ok(v) => format!("ok: {v:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_response_comes_back_whole_with_the_request_headers_sent() {
        let (port, server) = serve(vec![reply("200 OK", &["X-Kind: skill"], "hello")]);
        let net = net_for(port, 1024);
        let url = format!("http://127.0.0.1:{port}/a");
        let Ok(response) = net.get(&url, &[("Authorization", "token t1".into())]) else {
            panic!("get")
        };
        assert_eq!(response.status, 200);
        assert!(response.ok());
        assert_eq!(response.url, url);
        assert_eq!(response.header("x-kind"), Some("skill"));
        assert_eq!(response.header("x-none"), None);
        assert_eq!(response.text().ok().as_deref(), Some("hello"));
        assert_eq!(
            message(response.json()),
            format!("{url}: not JSON (expected value at line 1 column 1)")
        );
        assert_eq!(net.max_bytes(), 1024);
        let heads = server.join().unwrap_or_default();
        let head = heads[0].to_ascii_lowercase();
        assert!(head.starts_with("get /a http/1.1\r\n"), "{head}");
        assert!(head.contains("\r\nauthorization: token t1\r\n"), "{head}");
        let agent = format!(
            "\r\nuser-agent: hermes-loop/{}\r\n",
            env!("CARGO_PKG_VERSION")
        );
        assert!(head.contains(&agent), "{head}");
    }

    #[test]
    fn statuses_are_answers_not_errors_and_ok_means_2xx() {
        let (port, server) = serve(vec![reply("404 Not Found", &[], "gone")]);
        let response = net_for(port, 1024).get(&format!("http://127.0.0.1:{port}/x"), &[]);
        assert_eq!(
            response.as_ref().map(|r| (r.status, r.ok())).ok(),
            Some((404, false))
        );
        let _ = server.join();
        let at = |status: u16| Response {
            status,
            url: String::new(),
            headers: Default::default(),
            body: vec![0xff],
        };
        let oks: Vec<bool> = [199, 200, 299, 300].map(|s| at(s).ok()).to_vec();
        assert_eq!(oks, [false, true, true, false]);
        assert_eq!(message(at(200).text()), ": not UTF-8 text");
    }

    #[test]
    fn redirects_are_followed_five_times_and_no_more() {
        let hop = |to: &str| reply("302 Found", &[&format!("Location: {to}")], "");
        let mut five: Vec<String> = (1..=5).map(|i| hop(&format!("/r{i}"))).collect();
        five.push(reply("200 OK", &[], "end"));
        let (port, server) = serve(five);
        let response = net_for(port, 1024).get(&format!("http://127.0.0.1:{port}/r0"), &[]);
        assert_eq!(
            response.map(|r| (r.url, r.body)).ok(),
            Some((format!("http://127.0.0.1:{port}/r5"), b"end".to_vec()))
        );
        assert_eq!(server.join().map(|h| h.len()).ok(), Some(6));

        let six: Vec<String> = (1..=6).map(|i| hop(&format!("/r{i}"))).collect();
        let (port, _server) = serve(six);
        let url = format!("http://127.0.0.1:{port}/r0");
        assert_eq!(
            message(net_for(port, 1024).get(&url, &[])),
            format!("{url}: more than 5 redirects")
        );
    }

    #[test]
    fn a_redirect_is_checked_like_the_first_url() {
        let (port, _server) = serve(vec![reply(
            "301 Moved",
            &["Location: http://127.0.0.2:9/x"],
            "",
        )]);
        let got = net_for(port, 1024).get(&format!("http://127.0.0.1:{port}/"), &[]);
        assert_eq!(
            message(got),
            "refusing http://127.0.0.2:9/x: 127.0.0.2 is a loopback, private or link-local address (127.0.0.2); set HERMES_HUB_ALLOW_PRIVATE=1 to allow it"
        );
        let (port, _server) = serve(vec![reply("307 Temporary Redirect", &[], "")]);
        let url = format!("http://127.0.0.1:{port}/");
        assert_eq!(
            message(net_for(port, 1024).get(&url, &[])),
            format!("{url}: HTTP 307 without a Location")
        );
    }

    #[test]
    fn a_body_stops_at_the_cap_whether_declared_or_not() {
        let (port, _server) = serve(vec![reply("200 OK", &[], "0123456789")]);
        let got = net_for(port, 10).get(&format!("http://127.0.0.1:{port}/"), &[]);
        assert_eq!(got.map(|r| r.body.len()).ok(), Some(10));
        let (port, _server) = serve(vec![reply("200 OK", &[], "0123456789A")]);
        let url = format!("http://127.0.0.1:{port}/");
        assert_eq!(
            message(net_for(port, 10).get(&url, &[])),
            format!("{url} is larger than the limit of 10 bytes")
        );
        // No length declared: the body is read up to the cap and refused past it.
        let chunked = |body: &str| {
            format!(
                "HTTP/1.1 200 OK\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
                body.len()
            )
        };
        let (port, _server) = serve(vec![chunked("0123456789A"), chunked("0123456789")]);
        let net = net_for(port, 10);
        let url = format!("http://127.0.0.1:{port}/");
        assert_eq!(
            message(net.get(&url, &[])),
            format!("{url} is larger than the limit of 10 bytes")
        );
        assert_eq!(
            net.get(&url, &[]).map(|r| r.body).ok(),
            Some(b"0123456789".to_vec())
        );
    }

    #[test]
    fn a_silent_server_times_out_and_a_closed_port_is_a_network_error() {
        let Ok(listener) = std::net::TcpListener::bind("127.0.0.1:0") else {
            panic!("bind")
        };
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        let held = std::thread::spawn(move || {
            let accepted = listener.accept();
            std::thread::sleep(Duration::from_secs(2));
            drop(accepted);
        });
        let allow = AllowPrivate::Only(vec![format!("127.0.0.1:{port}")]);
        let Ok(net) = Net::with(Duration::from_millis(300), allow, 1024) else {
            panic!("client")
        };
        let url = format!("http://127.0.0.1:{port}/slow");
        assert_eq!(
            message(net.get(&url, &[])),
            format!("{url}: no answer within the timeout")
        );
        drop(held);

        let closed = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap_or(9);
        let url = format!("http://127.0.0.1:{closed}/");
        let got = message(net_for(closed, 1024).get(&url, &[]));
        assert!(
            got.starts_with(&format!("{url}: error sending request")),
            "{got}"
        );
        assert!(got.contains("Connection refused"), "{got}");
    }

    #[test]
    fn a_host_name_is_pinned_to_the_addresses_that_were_checked() {
        let (port, server) = serve(vec![reply("200 OK", &[], "a"), reply("200 OK", &[], "b")]);
        let allow = AllowPrivate::Only(vec![format!("localhost:{port}")]);
        let Ok(net) = Net::with(Duration::from_secs(5), allow, 1024) else {
            panic!("client")
        };
        let url = format!("http://localhost:{port}/");
        // localhost may resolve to ::1 first, where nobody listens: only the pinning is
        // asserted, and both requests reach the server through the same client.
        let first = net.get(&url, &[]).map(|r| r.body);
        let second = net.get(&url, &[]).map(|r| r.body);
        let pinned = net.pinned.lock().map(|p| p.len()).unwrap_or(0);
        assert_eq!(pinned, 1);
        if first.is_ok() {
            assert_eq!(
                (first.ok(), second.ok()),
                (Some(b"a".to_vec()), Some(b"b".to_vec()))
            );
            let _ = server.join();
        }
    }

    /// Answers one request with `head` and then holds the connection `hold` long, or closes
    /// it at once.
    fn serve_partly(head: &'static str, hold: Duration) -> u16 {
        use std::io::Write;
        let Ok(listener) = std::net::TcpListener::bind("127.0.0.1:0") else {
            panic!("bind")
        };
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        std::thread::spawn(move || {
            if let Ok((mut stream, _)) = listener.accept() {
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf);
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.flush();
                std::thread::sleep(hold);
            }
        });
        port
    }

    #[test]
    fn a_body_cut_short_is_a_network_error_and_a_stalled_one_a_timeout() {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc";
        let port = serve_partly(head, Duration::ZERO);
        let url = format!("http://127.0.0.1:{port}/");
        let got = net_for(port, 1024).get(&url, &[]);
        assert!(matches!(got, Err(HubError::Network { .. })), "{got:?}");
        let port = serve_partly(head, Duration::from_secs(3));
        let allow = AllowPrivate::Only(vec![format!("127.0.0.1:{port}")]);
        let Ok(net) = Net::with(Duration::from_millis(300), allow, 1024) else {
            panic!("client")
        };
        let url = format!("http://127.0.0.1:{port}/");
        assert_eq!(
            message(net.get(&url, &[])),
            format!("{url}: no answer within the timeout")
        );
    }

    #[test]
    fn a_read_error_is_a_timeout_by_its_kind_or_its_words() {
        use std::io::{Error, ErrorKind};
        assert!(read_timed_out(&Error::new(ErrorKind::TimedOut, "slow")));
        assert!(read_timed_out(&Error::other("operation timed out")));
        assert!(!read_timed_out(&Error::other("connection reset")));
        assert!(!read_timed_out(&Error::new(
            ErrorKind::UnexpectedEof,
            "cut"
        )));
    }

    #[test]
    fn a_default_client_reads_at_most_sixteen_mebibytes() {
        let Ok(net) = Net::new(Duration::from_secs(1)) else {
            panic!("client")
        };
        assert_eq!(net.max_bytes(), 16 * 1024 * 1024);
    }

    #[test]
    fn the_allowance_is_read_from_its_variable() {
        assert_eq!(AllowPrivate::parse(None), AllowPrivate::None);
        assert_eq!(AllowPrivate::parse(Some(" ")), AllowPrivate::None);
        assert_eq!(AllowPrivate::parse(Some("0")), AllowPrivate::None);
        assert_eq!(AllowPrivate::parse(Some(" 1 ")), AllowPrivate::All);
        assert_eq!(
            AllowPrivate::parse(Some("Hub.Local:8080, ,127.0.0.1:9")),
            AllowPrivate::Only(vec!["hub.local:8080".into(), "127.0.0.1:9".into()])
        );
        let url = |u: &str| Url::parse(u).unwrap_or_else(|_| panic!("{u}"));
        let only = AllowPrivate::Only(vec!["hub.local:80".into(), "10.0.0.1:8443".into()]);
        assert!(only.allows(&url("http://HUB.local/x")));
        assert!(!only.allows(&url("https://hub.local/x")));
        assert!(only.allows(&url("https://10.0.0.1:8443/")));
        assert!(!only.allows(&url("https://10.0.0.1/")));
        assert!(AllowPrivate::All.allows(&url("http://10.0.0.1/")));
        assert!(!AllowPrivate::None.allows(&url("http://10.0.0.1/")));
    }

    #[test]
    fn metadata_endpoints_are_refused_even_when_private_addresses_are_allowed() {
        let Ok(net) = Net::with(Duration::from_secs(1), AllowPrivate::All, 1024) else {
            panic!("client")
        };
        assert_eq!(
            message(net.get("http://METADATA.google.internal./x", &[])),
            "refusing http://metadata.google.internal./x: metadata.google.internal. is a loopback, private or link-local address (cloud metadata); set HERMES_HUB_ALLOW_PRIVATE=1 to allow it"
        );
        assert!(matches!(
            net.get("http://metadata.goog/", &[]),
            Err(HubError::Private { .. })
        ));
        assert_eq!(
            message(net.get("http://169.254.169.254/latest/", &[])),
            "refusing http://169.254.169.254/latest/: 169.254.169.254 is a loopback, private or link-local address (169.254.169.254); set HERMES_HUB_ALLOW_PRIVATE=1 to allow it"
        );
        assert_eq!(
            message(net.get("ftp://example.com/x", &[])),
            "refusing ftp://example.com/x: only http and https URLs are fetched"
        );
        assert_eq!(
            message(net.get("not a url", &[])),
            "not a url: not a URL (relative URL without a base)"
        );
        // The same address spelled as IPv6, and AWS's IPv6 endpoint.
        for url in [
            "http://[::ffff:169.254.169.254]/",
            "http://[fd00:ec2::254]/",
        ] {
            let refused = net.get(url, &[]);
            assert!(
                matches!(refused, Err(HubError::Private { .. })),
                "{refused:?}"
            );
        }
    }

    #[test]
    fn the_edges_of_each_internal_range() {
        let internal = [
            "172.31.255.255",
            "100.127.255.255",
            "198.18.0.1",
            "198.19.255.255",
            "240.0.0.1",
            "255.255.255.255",
            "224.0.0.1",
            "192.0.2.1",
            "0.1.2.3",
            "169.254.1.1",
            "::",
            "ff02::1",
            "fc00::1",
            "febf::1",
            "64:ff9b::",
        ];
        let public = [
            "172.32.0.1",
            "100.63.255.255",
            "100.128.0.1",
            "198.17.255.255",
            "198.20.0.1",
            "223.255.255.255",
            "1.0.0.1",
            "fec0::1",
            "fb00::1",
            "64:ff9b::1",
            "::ffff:8.8.8.8",
        ];
        let parse = |ip: &str| ip.parse::<IpAddr>().unwrap_or_else(|_| panic!("{ip}"));
        for ip in internal {
            assert!(is_internal(parse(ip)), "{ip} is internal");
        }
        for ip in public {
            assert!(!is_internal(parse(ip)), "{ip} is public");
        }
        assert!(is_metadata(parse("169.254.169.254")));
        assert!(is_metadata(parse("::ffff:169.254.169.254")));
        assert!(is_metadata(parse("fd00:ec2::254")));
        assert!(!is_metadata(parse("169.254.169.253")));
        assert!(!is_metadata(parse("::ffff:169.254.169.253")));
        assert!(!is_metadata(parse("fd00:ec2::253")));
    }
}
