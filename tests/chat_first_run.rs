//! What a new user meets first with hermes-chat: a home that is created (or refused), a
//! model that does not answer, settings that are mistyped.

mod support;

use support::chat::{chat, home_for, server};
use support::chat_server::Reply;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_new_home_is_announced_and_one_in_a_missing_folder_is_refused() {
    let srv = server(vec![Reply::text("hello")]);
    let configured = home_for(&srv, "");
    let parent = support::TempHome::new();
    let new_home = parent.path().join("hermes-new");
    let out = chat(configured.path())
        .env("HERMES_HOME", &new_home)
        .env("HERMES_BASE_URL", srv.base_url())
        .args(["-m", "fake-model", "-z", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "hermes-chat: created the Hermes home {}\n",
            new_home.display()
        )
    );
    assert!(new_home.join("state.db").is_file());

    // The second run finds it: nothing to say.
    let srv = server(vec![Reply::text("hello")]);
    let out = chat(configured.path())
        .env("HERMES_HOME", &new_home)
        .env("HERMES_BASE_URL", srv.base_url())
        .args(["-m", "fake-model", "-z", "hi"])
        .output()
        .unwrap();
    assert_eq!(stderr(&out), "");

    let typo = parent.path().join("hermse/home");
    let out = chat(configured.path())
        .env("HERMES_HOME", &typo)
        .env("HERMES_BASE_URL", srv.base_url())
        .args(["-m", "fake-model", "-z", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "hermes-chat: error: no Hermes home at {} (HERMES_HOME), and no folder {} to create it in\nhint: check the path; a home is created only in a folder that exists (mkdir -p it first to mean it)\n",
            typo.display(),
            parent.path().join("hermse").display()
        )
    );
    assert!(!parent.path().join("hermse").exists());
}

/// A model server that accepts and never answers: the wait is announced once per attempt,
/// each attempt ends at `HERMES_STREAM_READ_TIMEOUT`, and the error names the URL.
#[test]
fn a_silent_model_is_announced_and_given_up_at_the_read_timeout() {
    let srv = server(vec![Reply::Hang, Reply::Hang, Reply::Hang]);
    let home = home_for(&srv, "");
    let started = std::time::Instant::now();
    let out = chat(home.path())
        .env("HERMES_STREAM_READ_TIMEOUT", "1")
        .args(["-z", "hi"])
        .output()
        .unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(1));
    let url = format!("{}/chat/completions", srv.base_url());
    let timeout = format!("timed out waiting for the model at {url} (no data for 1 s)");
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 8, "{err}");
    let sid = support::chat::rows(home.path(), "SELECT id FROM sessions")[0][0].clone();
    for attempt in 0..3 {
        assert_eq!(
            lines[attempt * 2],
            format!("hermes-chat: waiting for the model at {url} (1 s)…")
        );
    }
    for (attempt, line) in [(1, lines[1]), (2, lines[3])] {
        assert!(
            line.starts_with(&format!(
                "hermes-chat: {timeout} (attempt {attempt}/3; retrying in "
            )),
            "{line}"
        );
    }
    assert_eq!(
        lines[5..],
        [
            format!("hermes-chat: error: API call failed after 3 retries: {timeout}"),
            "hint: a model that needs longer before its first word: raise HERMES_STREAM_READ_TIMEOUT (seconds)".to_string(),
            // The failed turn's message is stored: how to go on from it.
            format!("hermes-chat: the session {sid} is kept; go on with `hermes-chat -c` (or `-r {sid}`)")
        ]
    );
    assert_eq!(
        support::chat::transcript(home.path()),
        ["user|hi|NULL|NULL"]
    );
}

#[test]
fn a_read_timeout_that_is_not_a_number_is_an_error_naming_it() {
    let srv = server(vec![Reply::text("never")]);
    let home = home_for(&srv, "");
    let out = chat(home.path())
        .env("HERMES_STREAM_READ_TIMEOUT", "abc")
        .args(["-z", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "hermes-chat: error: HERMES_STREAM_READ_TIMEOUT=\"abc\" is not a number of seconds between 0 and 86400 (e.g. 300)\n"
    );
    assert!(srv.requests().is_empty());
}

#[test]
fn a_base_url_without_http_is_a_usage_error_at_once() {
    let srv = server(vec![Reply::text("never")]);
    let home = home_for(&srv, "");
    let out = chat(home.path())
        .args(["--base-url", "localhost:8080/v1", "-z", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "hermes-chat: error: the base URL \"localhost:8080/v1\" has no http:// or https://\nhint: write it in full, e.g. http://localhost:8080/v1 for a server on this machine\n"
    );
    assert!(!home.path().join("state.db").exists());
}

/// No model named anywhere, an endpoint named for the run: the first model it lists.
#[test]
fn the_endpoints_first_listed_model_is_the_default_when_none_is_named() {
    let srv = server(vec![Reply::text("hello")]);
    let home = support::TempHome::new();
    home.write("config.yaml", "agent:\n  retry_backoff_seconds: 0.01\n");
    let out = chat(home.path())
        .env("HERMES_BASE_URL", srv.base_url())
        .env("HERMES_API_KEY", "sk-test-key")
        .args(["-z", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hello\n");
    assert_eq!(
        stderr(&out),
        format!(
            "hermes-chat: no model named; using fake-model, the first that {}/models lists (-m chooses another)\n",
            srv.base_url()
        )
    );
    let requests = srv.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].body["model"], "fake-model");
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer sk-test-key")
    );

    // Without an endpoint named for the run, no model is still an error.
    let out = chat(home.path()).args(["-z", "hi"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("hermes-chat: error: no model configured\n"),
        "{}",
        stderr(&out)
    );
}
