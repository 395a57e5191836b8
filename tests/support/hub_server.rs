//! A loopback HTTP server for the skills hub tests: a fake GitHub contents API, well-known
//! skill indexes and archives, each path answered from a table the test fills and can change
//! while the server runs (a new upstream version). A route can answer, redirect, wait before
//! answering, or hang until the server stops. Every request is recorded (path and headers)
//! for exact assertions.
//!
//! std only (plus serde_json): one thread per connection, one request per connection
//! (`Connection: close`).

use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What one path answers.
#[derive(Clone, Debug)]
pub enum Route {
    Body {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// Waits, then answers with the inner route.
    Delay(Duration, Box<Route>),
    /// Accepts and never answers.
    Hang,
    /// The first route once, then the second for every later request.
    Then(Box<Route>, Box<Route>),
}

impl Route {
    pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Route {
        Route::Body {
            status: 200,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
        }
    }

    pub fn status(status: u16, headers: &[(&str, &str)], body: &str) -> Route {
        Route::Body {
            status,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: body.as_bytes().to_vec(),
        }
    }

    pub fn redirect(location: &str) -> Route {
        Route::status(302, &[("Location", location)], "")
    }
}

/// A well-known skill: name, description, files (path and text).
pub type WellKnownSkill<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct Request {
    pub path: String,
    pub headers: Vec<(String, String)>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub struct HubServer {
    addr: SocketAddr,
    routes: Arc<Mutex<HashMap<String, Route>>>,
    requests: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
}

impl HubServer {
    pub fn start() -> HubServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        let server = HubServer {
            addr,
            routes: Arc::new(Mutex::new(HashMap::new())),
            requests: Arc::new(Mutex::new(Vec::new())),
            stop: Arc::new(AtomicBool::new(false)),
        };
        let (routes, requests, stop) = (
            server.routes.clone(),
            server.requests.clone(),
            server.stop.clone(),
        );
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (routes, requests, stop) = (routes.clone(), requests.clone(), stop.clone());
                std::thread::spawn(move || serve(stream, &routes, &requests, &stop));
            }
        });
        server
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// `127.0.0.1:<port>`, for `HERMES_HUB_ALLOW_PRIVATE`.
    pub fn authority(&self) -> String {
        self.addr.to_string()
    }

    pub fn set(&self, path: &str, route: Route) {
        self.routes
            .lock()
            .expect("routes")
            .insert(path.to_string(), route);
    }

    pub fn text(&self, path: &str, body: impl Into<Vec<u8>>) {
        self.set(path, Route::ok("text/plain", body));
    }

    pub fn json(&self, path: &str, value: &Value) {
        self.set(path, Route::ok("application/json", value.to_string()));
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().expect("requests").clone()
    }

    /// A well-known index at `<base>/.well-known/skills/` listing `skills` (name,
    /// description, files), each file served below `<base>/.well-known/skills/<name>/`.
    pub fn well_known(&self, base: &str, skills: &[WellKnownSkill<'_>]) {
        let root = format!("{base}/.well-known/skills");
        let index: Vec<Value> = skills
            .iter()
            .map(|(name, desc, files)| {
                json!({"name": name, "description": desc,
                       "files": files.iter().map(|(r, _)| *r).collect::<Vec<_>>()})
            })
            .collect();
        self.json(&format!("{root}/index.json"), &json!({ "skills": index }));
        for (name, _, files) in skills {
            for (rel, text) in *files {
                self.text(&format!("{root}/{name}/{rel}"), text.as_bytes());
            }
        }
    }

    /// A GitHub folder listing (`type` is `dir`, `file`, `symlink`…).
    pub fn github_listing(&self, repo: &str, dir: &str, entries: &[(&str, &str)]) {
        let items: Vec<Value> = entries
            .iter()
            .map(|(name, kind)| {
                let path = if dir.is_empty() {
                    name.to_string()
                } else {
                    format!("{dir}/{name}")
                };
                json!({"name": name, "path": path, "type": kind})
            })
            .collect();
        self.json(
            &format!("/repos/{repo}/contents/{}", dir.trim_matches('/')),
            &Value::Array(items),
        );
    }

    /// A skill folder on the fake GitHub: listings of it and its subfolders, raw files.
    pub fn github_skill(&self, repo: &str, dir: &str, files: &[(&str, &str)]) {
        let mut folders: HashMap<String, Vec<(String, &str)>> = HashMap::new();
        for (rel, text) in files {
            let full = format!("{dir}/{rel}");
            self.text(&format!("/repos/{repo}/contents/{full}"), text.as_bytes());
            let mut parent = dir.to_string();
            let parts: Vec<&str> = rel.split('/').collect();
            for (i, part) in parts.iter().enumerate() {
                let kind = if i + 1 == parts.len() { "file" } else { "dir" };
                let entry = folders.entry(parent.clone()).or_default();
                if !entry.iter().any(|(n, _)| n == part) {
                    entry.push((part.to_string(), kind));
                }
                parent = format!("{parent}/{part}");
            }
        }
        for (folder, entries) in folders {
            let refs: Vec<(&str, &str)> = entries.iter().map(|(n, k)| (n.as_str(), *k)).collect();
            self.github_listing(repo, &folder, &refs);
        }
    }
}

impl Drop for HubServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

/// A loopback port nothing listens on (a source that is down).
pub fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

fn serve(
    stream: TcpStream,
    routes: &Mutex<HashMap<String, Route>>,
    requests: &Mutex<Vec<Request>>,
    stop: &AtomicBool,
) {
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let target = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let path = target.split('?').next().unwrap_or("/").to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.trim_end().split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    requests.lock().expect("requests").push(Request {
        path: path.clone(),
        headers,
    });
    let route = {
        let mut table = routes.lock().expect("routes");
        match table.get(&path).cloned() {
            Some(Route::Then(first, rest)) => {
                table.insert(path.clone(), *rest);
                Some(*first)
            }
            other => other,
        }
    };
    let mut route = route.unwrap_or_else(|| Route::status(404, &[], "{\"message\":\"Not Found\"}"));
    loop {
        match route {
            Route::Delay(wait, inner) => {
                std::thread::sleep(wait);
                route = *inner;
            }
            Route::Then(first, _) => route = *first,
            Route::Hang => {
                while !stop.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(20));
                }
                return;
            }
            Route::Body {
                status,
                headers,
                body,
            } => {
                let mut stream = stream;
                let mut head = format!(
                    "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n",
                    body.len()
                );
                for (k, v) in headers {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body);
                let _ = stream.flush();
                return;
            }
        }
    }
}
