//! Contained execution: one sandbox for every process the loop starts (the terminal tool,
//! skill scripts, memory providers). A [`Policy`] says what a command may read, write and
//! reach; a [`Sandbox`] holds it for a session with a private temp dir, and [`Sandbox::contain`]
//! applies it to a `Command` before exec (Landlock, seccomp, rlimits, namespaces where a
//! protected path needs a mount: see `linux`). Where the kernel cannot contain, building a
//! sandbox fails with an error that names `--sandbox full`: a command never runs
//! uncontained without the user having said so.
//!
//! The environment of a contained command is an allowlist (`env`), and output that still
//! carries a known secret is redacted before anyone sees it. docs/sandbox.md has the whole
//! picture.

mod denial;
mod env;
#[cfg(target_os = "linux")]
mod linux;
mod policy;

use std::path::{Path, PathBuf};
use std::process::Command;

pub use env::{Redactor, child_env, is_secret_name};
pub use policy::{
    HERMES_SECRETS, HOME_SECRETS, Limits, Mode, Network, Places, Policy, SYSTEM_SECRETS,
};

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error(
        "this kernel cannot contain commands ({0}); run with --sandbox full to run them uncontained"
    )]
    Unavailable(String),
    #[error("cannot create the sandbox's temp dir: {0}")]
    TempDir(std::io::Error),
    #[error("landlock: {0}")]
    Landlock(String),
    #[error("seccomp: {0}")]
    Seccomp(String),
}

/// A session's sandbox: the policy, a private temp dir (removed when dropped) and the secret
/// values to redact.
#[derive(Debug)]
pub struct Sandbox {
    policy: Policy,
    temp: tempfile::TempDir,
    redactor: Redactor,
    #[cfg(target_os = "linux")]
    support: linux::Support,
    #[cfg(target_os = "linux")]
    rules: linux::RulesCache,
}

/// What is in force, for the start line and `thread.started`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description {
    pub mode: &'static str,
    pub network: &'static str,
    pub mechanism: &'static str,
}

impl Sandbox {
    /// Checks that the kernel can enforce `policy` and makes the private temp dir.
    pub fn new(policy: Policy) -> Result<Sandbox, SandboxError> {
        #[cfg(target_os = "linux")]
        let support = {
            let support = linux::Support::probe();
            if policy.mode != Mode::FullAccess && !support.can_contain() {
                return Err(SandboxError::Unavailable(format!(
                    "Landlock ABI {} (2 or later needed), seccomp {}",
                    support.landlock_abi,
                    if support.seccomp { "yes" } else { "no" }
                )));
            }
            support
        };
        #[cfg(not(target_os = "linux"))]
        if policy.mode != Mode::FullAccess {
            return Err(SandboxError::Unavailable(format!(
                "no sandbox for {} yet",
                std::env::consts::OS
            )));
        }
        let temp = tempfile::Builder::new()
            .prefix("hermes-sandbox-")
            .tempdir()
            .map_err(SandboxError::TempDir)?;
        Ok(Sandbox {
            policy,
            temp,
            redactor: Redactor::default(),
            #[cfg(target_os = "linux")]
            support,
            #[cfg(target_os = "linux")]
            rules: linux::RulesCache::default(),
        })
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    pub fn temp_dir(&self) -> &Path {
        self.temp.path()
    }

    pub fn describe(&self) -> Description {
        Description {
            mode: self.policy.mode.as_str(),
            network: self.policy.network.as_str(),
            mechanism: self.mechanism(),
        }
    }

    fn mechanism(&self) -> &'static str {
        #[cfg(target_os = "linux")]
        let namespaces = self.support.mount_namespaces;
        #[cfg(not(target_os = "linux"))]
        let namespaces = false;
        match (self.policy.mode, namespaces, self.policy.network) {
            (Mode::FullAccess, _, _) => "none",
            (_, true, Network::Loopback) => "landlock+seccomp+mountns+netns",
            (_, true, _) => "landlock+seccomp+mountns",
            (_, false, _) => "landlock+seccomp",
        }
    }

    pub fn set_redactor(&mut self, redactor: Redactor) {
        self.redactor = redactor;
    }

    /// `text` with every known secret value replaced.
    pub fn redact(&self, text: &str) -> String {
        if self.redactor.is_empty() {
            text.to_string()
        } else {
            self.redactor.redact(text)
        }
    }

    /// The environment a command started from `parent` gets.
    pub fn child_env(
        &self,
        parent: impl IntoIterator<Item = (String, String)>,
    ) -> Vec<(String, String)> {
        child_env(
            parent,
            &self.policy.env_allow,
            &self.temp.path().to_string_lossy(),
        )
    }

    /// Makes `cmd` start contained. `cpu_seconds` bounds each process's CPU time. The
    /// environment is the caller's to set (from [`Sandbox::child_env`]).
    pub fn contain(&self, cmd: &mut Command, cpu_seconds: Option<u64>) -> Result<(), SandboxError> {
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::process::CommandExt;
            let prepared = linux::prepare(
                &self.policy,
                self.temp.path(),
                &self.support,
                &self.rules,
                cpu_seconds,
            )?;
            // SAFETY: `apply` makes only system calls on data prepared here, as the code
            // between fork and exec must.
            unsafe {
                cmd.pre_exec(move || linux::apply(&prepared));
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (cmd, cpu_seconds);
        Ok(())
    }

    /// The error of a spawn that failed while the sandbox was being set up, in words.
    pub fn spawn_error(&self, error: &std::io::Error) -> String {
        #[cfg(target_os = "linux")]
        if let Some((step, errno)) = error.raw_os_error().and_then(linux::decode_step) {
            return format!("the sandbox could not be set up ({step}: {errno})");
        }
        error.to_string()
    }

    /// One line about what the sandbox refused in this output, if anything.
    pub fn denial(&self, output: &str, cwd: &Path) -> Option<String> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        denial::explain(output, &self.policy, self.temp.path(), cwd, home.as_deref())
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::process::Stdio;

    /// A workspace, a fake user home with a key and a Hermes home inside it, and a directory
    /// outside both.
    struct Scene {
        _dir: tempfile::TempDir,
        workspace: PathBuf,
        home: PathBuf,
        outside: PathBuf,
    }

    fn scene() -> Scene {
        let dir = tempfile::tempdir().expect("tempdir");
        let workspace = dir.path().join("work");
        let home = dir.path().join("home");
        let outside = dir.path().join("outside");
        for d in [
            workspace.join(".git/hooks"),
            home.join(".ssh"),
            home.join(".hermes"),
            outside.clone(),
        ] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        for (path, text) in [
            (home.join(".ssh/id_ed25519"), "PRIVATE KEY"),
            (home.join(".hermes/.env"), "OPENAI_API_KEY=sk-canary-123456"),
            (home.join(".hermes/config.yaml"), "model: {}\n"),
            (home.join("notes.txt"), "readable"),
            (workspace.join(".git/config"), "[core]\n"),
            (outside.join("keep.txt"), "intact"),
        ] {
            std::fs::write(path, text).expect("write");
        }
        Scene {
            _dir: dir,
            workspace,
            home,
            outside,
        }
    }

    /// The sandbox of `scene`, or `None` (the test says it is skipped) on a kernel that
    /// cannot contain.
    fn sandbox(scene: &Scene, mode: Mode, network: Network) -> Option<Sandbox> {
        let policy = Policy::for_session(
            mode,
            network,
            &Places {
                workspace: &scene.workspace,
                hermes_home: &scene.home.join(".hermes"),
                user_home: Some(&scene.home),
            },
        );
        match Sandbox::new(policy) {
            Ok(s) => Some(s),
            Err(SandboxError::Unavailable(why)) => {
                eprintln!("skipped: this kernel cannot contain commands ({why})");
                None
            }
            Err(e) => panic!("{e}"),
        }
    }

    /// Runs `script` with bash under `sandbox` in the workspace: exit code and output.
    fn run(sandbox: &Sandbox, scene: &Scene, script: &str) -> (i32, String) {
        let mut cmd = Command::new("bash");
        cmd.arg("-c")
            .arg(script)
            .current_dir(&scene.workspace)
            .env_clear()
            .envs(sandbox.child_env(std::env::vars()))
            .env("HOME", &scene.home)
            .stdin(Stdio::null());
        if let Err(e) = sandbox.contain(&mut cmd, Some(30)) {
            panic!("{e}");
        }
        let out = match cmd.output() {
            Ok(o) => o,
            Err(e) => panic!("{}", sandbox.spawn_error(&e)),
        };
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        (out.status.code().unwrap_or(-1), text)
    }

    #[test]
    fn workspace_write_writes_the_workspace_and_temp_but_nothing_outside() {
        let s = scene();
        let Some(sb) = sandbox(&s, Mode::WorkspaceWrite, Network::Off) else {
            return;
        };
        let (code, out) = run(
            &sb,
            &s,
            "echo a > inside.txt && mkdir -p d/e && mv inside.txt d/e/ && echo b > \"$TMPDIR/t\" && cat d/e/inside.txt \"$TMPDIR/t\"",
        );
        assert_eq!((code, out.as_str()), (0, "a\nb\n"));
        let outside = s.outside.join("keep.txt");
        let (code, _) = run(
            &sb,
            &s,
            &format!(
                "echo pwned > {0}; rm -f {0}; touch {1}/new",
                outside.display(),
                s.home.display()
            ),
        );
        assert_eq!(code, 1);
        assert_eq!(
            std::fs::read_to_string(&outside).ok().as_deref(),
            Some("intact")
        );
        assert!(!s.home.join("new").exists());
    }

    #[test]
    fn credentials_cannot_be_read_but_their_neighbours_can() {
        let s = scene();
        let Some(sb) = sandbox(&s, Mode::WorkspaceWrite, Network::Off) else {
            return;
        };
        let (code, out) = run(&sb, &s, "cat ~/notes.txt ~/.hermes/config.yaml");
        assert_eq!((code, out.as_str()), (0, "readablemodel: {}\n"));
        let (code, out) = run(&sb, &s, "cat ~/.ssh/id_ed25519 ~/.hermes/.env");
        assert_eq!(code, 1);
        assert!(!out.contains("PRIVATE") && !out.contains("canary"), "{out}");
        assert!(out.contains("Permission denied"), "{out}");
    }

    #[test]
    fn git_hooks_and_config_stay_read_only_and_git_cannot_be_swapped() {
        let s = scene();
        let Some(sb) = sandbox(&s, Mode::WorkspaceWrite, Network::Off) else {
            return;
        };
        let (code, _) = run(
            &sb,
            &s,
            "echo evil > .git/hooks/pre-commit; echo evil >> .git/config; mv .git .git-old; echo ok > .git/index",
        );
        assert_eq!(code, 0, "the last write, to the index, is allowed");
        assert!(!s.workspace.join(".git/hooks/pre-commit").exists());
        assert!(!s.workspace.join(".git-old").exists());
        assert_eq!(
            std::fs::read_to_string(s.workspace.join(".git/config"))
                .ok()
                .as_deref(),
            Some("[core]\n")
        );
    }

    #[test]
    fn with_the_network_off_no_connection_reaches_a_loopback_listener() {
        let s = scene();
        let Ok(listener) = std::net::TcpListener::bind("127.0.0.1:0") else {
            panic!("bind")
        };
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        listener.set_nonblocking(true).expect("nonblocking");
        let Some(sb) = sandbox(&s, Mode::WorkspaceWrite, Network::Off) else {
            return;
        };
        let (code, out) = run(&sb, &s, &format!("echo hi > /dev/tcp/127.0.0.1/{port}"));
        assert_eq!(code, 1, "{out}");
        assert!(listener.accept().is_err(), "a connection arrived");
        assert_eq!(
            sb.denial(&out, &s.workspace).as_deref(),
            Some("network access denied by the sandbox (network off; --network on allows it)")
        );
    }

    #[test]
    fn the_parents_environment_and_memory_stay_closed() {
        let s = scene();
        let Some(sb) = sandbox(&s, Mode::WorkspaceWrite, Network::Off) else {
            return;
        };
        let (_, out) = run(
            &sb,
            &s,
            "cat /proc/$PPID/environ; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c . ; head -c 16 /proc/$PPID/mem",
        );
        assert!(out.contains("Permission denied"), "{out}");
    }

    #[test]
    fn a_set_user_id_bit_cannot_be_set_even_in_the_workspace() {
        let s = scene();
        let Some(sb) = sandbox(&s, Mode::WorkspaceWrite, Network::Off) else {
            return;
        };
        let (code, out) = run(
            &sb,
            &s,
            "cp /bin/true t && (chmod u+s t; chmod 4755 t; chmod g+s t) 2>/dev/null; stat -c %a t",
        );
        assert_eq!((code, out.lines().last()), (0, Some("755")), "{out}");
    }

    #[test]
    fn loopback_mode_has_its_own_loopback_and_not_the_hosts() {
        let s = scene();
        let Ok(listener) = std::net::TcpListener::bind("127.0.0.1:0") else {
            panic!("bind")
        };
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        listener.set_nonblocking(true).expect("nonblocking");
        let Some(sb) = sandbox(&s, Mode::WorkspaceWrite, Network::Loopback) else {
            return;
        };
        let script = format!(
            "python3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(); c=socket.create_connection(s.getsockname()); print(\"own loopback ok\")'; echo hi > /dev/tcp/127.0.0.1/{port} || echo host unreachable"
        );
        let (_, out) = run(&sb, &s, &script);
        assert!(
            out.contains("own loopback ok") && out.contains("host unreachable"),
            "{out}"
        );
        assert!(listener.accept().is_err(), "a connection arrived");
    }

    #[test]
    fn a_file_made_after_the_rules_were_cached_is_readable_by_the_next_command() {
        let s = scene();
        let Some(sb) = sandbox(&s, Mode::WorkspaceWrite, Network::Off) else {
            return;
        };
        let (code, _) = run(&sb, &s, "cat ~/notes.txt");
        assert_eq!(code, 0);
        std::fs::write(s.home.join("later.txt"), "later").expect("write");
        let (code, out) = run(&sb, &s, "cat ~/later.txt");
        assert_eq!((code, out.as_str()), (0, "later"));
    }

    #[test]
    fn full_access_contains_nothing() {
        let s = scene();
        let Some(sb) = sandbox(&s, Mode::FullAccess, Network::On) else {
            return;
        };
        let target = s.outside.join("new.txt");
        let (code, _) = run(&sb, &s, &format!("echo x > {}", target.display()));
        assert_eq!(code, 0);
        assert!(target.exists());
        assert_eq!(sb.describe().mechanism, "none");
    }
}
