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
