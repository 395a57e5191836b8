//! Runs the scripted chat server of `tests/support/chat_server.rs` as a process, e.g. for a
//! Python peer or a benchmark.
//!
//! Usage: `chat_server_main SCRIPT.json [PORT] [--log FILE] [--linger SECS | --forever]`.
//! Prints `http://127.0.0.1:PORT/v1`, serves until the script is used up (then `--linger`
//! seconds more), or forever answering every further call with the last reply.

#[allow(dead_code)]
#[path = "../tests/support/chat_server.rs"]
mod chat_server;

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chat_server_main: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let (mut positional, mut log, mut linger, mut forever) =
        (Vec::new(), None, Duration::ZERO, false);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--log" => log = Some(args.next().ok_or("--log needs a file")?),
            "--linger" => {
                let secs = args.next().ok_or("--linger needs seconds")?;
                let parsed = secs.parse::<f64>().map_err(|e| e.to_string());
                linger = parsed
                    .and_then(|s| Duration::try_from_secs_f64(s).map_err(|e| e.to_string()))
                    .map_err(|e| format!("--linger {secs}: {e}"))?;
            }
            "--forever" => forever = true,
            _ => positional.push(arg),
        }
    }
    let usage =
        "usage: chat_server_main SCRIPT.json [PORT] [--log FILE] [--linger SECS | --forever]";
    let [script, rest @ ..] = positional.as_slice() else {
        return Err(usage.into());
    };
    let port = match rest {
        [] => 0,
        [port] => port.parse().map_err(|e| format!("port {port}: {e}"))?,
        _ => return Err(usage.into()),
    };
    let text = std::fs::read_to_string(script).map_err(|e| format!("{script}: {e}"))?;
    let value = serde_json::from_str(&text).map_err(|e| format!("{script}: {e}"))?;
    let script = chat_server::parse_script(&value).map_err(|e| format!("{script}: {e}"))?;
    let log = match log {
        Some(path) => {
            let file = std::fs::File::create(&path).map_err(|e| format!("{path}: {e}"))?;
            Some(Box::new(file) as Box<dyn Write + Send>)
        }
        None => None,
    };
    let options = chat_server::Options {
        port,
        repeat_last: forever,
        log,
    };
    let server =
        chat_server::ChatServer::start_with(script, options).map_err(|e| format!("bind: {e}"))?;
    println!("{}", server.base_url());
    std::io::stdout().flush().map_err(|e| e.to_string())?;
    if forever {
        loop {
            std::thread::park();
        }
    }
    while !server.wait_until_done(Duration::from_secs(3600)) {}
    std::thread::sleep(linger);
    Ok(())
}
