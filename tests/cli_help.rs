//! The help a new user reads: every argument says what it is, every command and subcommand
//! states its exit codes, the examples and input shapes are there, nothing prints twice.

mod support;

use support::{BINARIES, TempHome, bin};

fn stdout(name: &str, args: &[&str]) -> String {
    let home = TempHome::new();
    let out = bin(name, home.path())
        .args(args)
        .assert()
        .success()
        .get_output()
        .clone();
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Walks each binary's whole clap tree (`--generate help-check`, the same walk the library
/// unit-tests): an argument without help or a (sub)command without exit codes is listed.
#[test]
fn no_argument_without_help_and_no_command_without_exit_codes() {
    let mut problems = String::new();
    for name in BINARIES {
        problems.push_str(&stdout(name, &["--generate", "help-check"]));
    }
    assert_eq!(problems, "");
}

#[test]
fn every_subcommand_help_states_exit_codes() {
    for (name, sub) in [
        ("hermes-skills", "apply"),
        ("hermes-memory", "apply"),
        ("hermes-index", "ingest"),
        ("hermes-curate", "rollback"),
    ] {
        let help = stdout(name, &[sub, "--help"]);
        assert!(help.contains("Exit codes: "), "{name} {sub}:\n{help}");
    }
}

#[test]
fn recall_prints_its_modes_once() {
    for flag in ["-h", "--help"] {
        let help = stdout("hermes-recall", &[flag]);
        assert_eq!(
            help.matches("Modes (as the session_search tool").count(),
            1,
            "{help}"
        );
    }
}

#[test]
fn input_shapes_and_examples_are_in_the_help() {
    let cases: [(&str, &[&str], &[&str]); 5] = [
        (
            "hermes-index",
            &["ingest", "--help"],
            &["Input:", "\"messages\"", "Example"],
        ),
        (
            "hermes-memory",
            &["apply", "--help"],
            &["Input:", "\"action\"", "Example"],
        ),
        (
            "hermes-skills",
            &["apply", "--help"],
            &["Input:", "\"action\"", "Example"],
        ),
        (
            "hermes-recall",
            &["--help"],
            &["--batch", "Examples:", "\"query\""],
        ),
        (
            "hermes-skill-scan",
            &["--help"],
            &["Examples:", "--explain list"],
        ),
    ];
    for (name, args, wants) in cases {
        let help = stdout(name, args);
        for want in wants {
            assert!(
                help.contains(want),
                "{name} {args:?} lacks {want:?}:\n{help}"
            );
        }
    }
}

#[test]
fn explain_list_names_every_rule() {
    let list = stdout("hermes-skill-scan", &["--explain", "list"]);
    let ids: Vec<&str> = list
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for id in [
        "curl-pipe-shell",
        "unknown-key",
        "name-folder-mismatch",
        "broken-link",
    ] {
        assert!(ids.contains(&id), "{id} missing from:\n{list}");
    }
    // Every id listed explains.
    for id in &ids {
        stdout("hermes-skill-scan", &["--explain", id]);
    }
}

#[test]
fn color_is_a_flag_of_every_binary() {
    for name in BINARIES {
        let help = stdout(name, &["--help"]);
        assert!(help.contains("--color <WHEN>"), "{name}:\n{help}");
        assert!(help.contains("--generate <KIND>"), "{name}");
    }
}

/// The list the help and generate tests walk is every binary there is, so a new one is
/// checked too.
#[test]
fn the_tested_binaries_are_the_ones_in_bins() {
    let mut built: Vec<String> = std::fs::read_dir(support::repo_root().join("bins"))
        .expect("bins/")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".rs")
                .map(str::to_string)
        })
        .collect();
    built.sort();
    assert_eq!(built, BINARIES);
}
