//! `--generate`: every binary prints each completion script and its man page, and they are
//! well-formed; `pipelines/install.sh` lays them out under a prefix.

mod support;

use std::path::Path;
use std::process::Command;

use support::{BINARIES, TempHome, bin};

fn generate(name: &str, kind: &str) -> String {
    let home = TempHome::new();
    let out = bin(name, home.path())
        .args(["--generate", kind])
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(out.stderr.is_empty(), "{name} {kind}: {:?}", out.stderr);
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Runs `program args… file` and asserts it exits 0 with nothing on stderr.
fn check_with(program: &str, args: &[&str], file: &Path) {
    let out = Command::new(program)
        .args(args)
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("{program} is needed for this test: {e}"));
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{program} {args:?} {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn bash_completion_parses_and_registers_the_command() {
    let dir = TempHome::new();
    for name in BINARIES {
        let text = generate(name, "complete-bash");
        assert!(
            text.contains(&format!("complete -F _{} ", name.replace('-', "__")))
                && text.contains(&format!(" {name}\n")),
            "{name}: {text}"
        );
        assert!(
            text.contains("--generate") && text.contains("--color"),
            "{name}"
        );
        let file = dir.write(name, &text);
        check_with("bash", &["-n"], &file);
    }
}

#[test]
fn zsh_and_fish_completions_name_the_command() {
    for name in BINARIES {
        let zsh = generate(name, "complete-zsh");
        assert!(
            zsh.starts_with(&format!("#compdef {name}\n")),
            "{name}: {zsh}"
        );
        let fish = generate(name, "complete-fish");
        assert!(fish.contains(&format!("complete -c {name} ")), "{name}");
        assert!(fish.contains("-l generate"), "{name}");
    }
}

#[test]
fn man_pages_render_without_warnings() {
    let dir = TempHome::new();
    for name in BINARIES {
        let text = generate(name, "man");
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!(".TH {name} 1 "))),
            "{name}: {}",
            &text[..text.len().min(400)]
        );
        assert!(
            text.contains(".SH NAME") && text.contains(".SH SYNOPSIS"),
            "{name}"
        );
        let file = dir.write(&format!("{name}.1"), &text);
        // groff -z parses and formats without output, warning (e.g. on bad input characters)
        // on stderr.
        check_with("groff", &["-man", "-Tutf8", "-z"], &file);
    }
}

#[test]
fn subcommands_appear_in_man_and_completions() {
    let man = generate("hermes-skills", "man");
    let bash = generate("hermes-skills", "complete-bash");
    assert!(!man.contains("hermes\\-skills\\-list(1)"));
    for sub in ["list", "view", "apply", "prompt-index"] {
        // Each subcommand in full in the one page, not a pointer to a page nobody installs.
        let entry = format!(".SS \"hermes\\-skills {}\"", sub.replace('-', "\\-"));
        assert!(man.contains(&entry), "man lacks {entry}");
        assert!(bash.contains(sub), "bash completion lacks {sub}");
    }
}

#[test]
fn generate_needs_no_subcommand_and_no_home() {
    // hermes-index requires a subcommand; --generate still answers, with no home at all.
    let home = TempHome::new();
    let missing = home.path().join("no-such-home");
    bin("hermes-index", &missing)
        .args(["--generate", "complete-bash"])
        .assert()
        .success();
    assert!(!missing.exists());
}

#[test]
fn an_unknown_kind_is_a_usage_error_listing_the_kinds() {
    let home = TempHome::new();
    let out = bin("hermes-skills", home.path())
        .args(["--generate", "complete-tcsh"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("complete-tcsh"), "{err}");
    assert!(
        err.contains("complete-bash, complete-zsh, complete-fish, man"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

/// The layout `make install` produces, from the debug binaries this test run already built
/// (a release build per test run would cost minutes): DESTDIR staging, debug info split off
/// with a link the binary keeps, every page and completion in place.
#[test]
fn install_script_lays_out_a_prefix() {
    let stage = TempHome::new();
    let from = assert_cmd::cargo::cargo_bin("hermes-skills");
    let from = from.parent().expect("target folder");
    let out = Command::new(support::repo_root().join("pipelines/install.sh"))
        .arg(from)
        .env("PREFIX", "/opt/hermes")
        .env("DESTDIR", stage.path())
        .output()
        .expect("run install.sh");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let root = stage.path().join("opt/hermes");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "installed 8 binaries, man pages and completions under {}\n",
            root.display()
        )
    );
    let mut files: Vec<String> = walkdir::WalkDir::new(&root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            e.path()
                .strip_prefix(&root)
                .expect("under root")
                .display()
                .to_string()
        })
        .collect();
    files.sort();
    let mut expected = Vec::new();
    for name in BINARIES {
        expected.extend([
            format!("bin/.debug/{name}.debug"),
            format!("bin/{name}"),
            format!("share/bash-completion/completions/{name}"),
            format!("share/fish/vendor_completions.d/{name}.fish"),
            format!("share/man/man1/{name}.1"),
            format!("share/zsh/site-functions/_{name}"),
        ]);
    }
    expected.sort();
    assert_eq!(files, expected);
    for name in BINARIES {
        let installed = root.join("bin").join(name);
        // The stripped binary runs, and points at its debug file.
        let version = Command::new(&installed)
            .arg("--version")
            .output()
            .expect("run installed binary");
        assert!(version.status.success(), "{name}");
        let sections = Command::new("objdump")
            .args(["-h"])
            .arg(&installed)
            .output()
            .expect("objdump is needed for this test");
        let sections = String::from_utf8_lossy(&sections.stdout);
        assert!(sections.contains(".gnu_debuglink"), "{name}: {sections}");
        assert!(!sections.contains(".debug_line"), "{name}: {sections}");
        let debug = Command::new("objdump")
            .args(["-h"])
            .arg(root.join(format!("bin/.debug/{name}.debug")))
            .output()
            .expect("objdump");
        assert!(
            String::from_utf8_lossy(&debug.stdout).contains(".debug_line"),
            "{name}"
        );
        assert_eq!(
            std::fs::read_to_string(root.join(format!("share/man/man1/{name}.1"))).expect("man"),
            generate(name, "man")
        );
    }
}
