//! The policy as Linux enforces it, in the child between fork and exec:
//! - a mount namespace (with a user namespace when we are not root) where every mount is
//!   read-only but the writable roots, with read-only binds over `.git/hooks`, `.git/config`
//!   and HERMES_HOME inside them and empty read-only mounts over secrets inside them (and a
//!   network namespace of its own for loopback-only);
//! - `setrlimit` for CPU time, file size and process count; every capability dropped;
//! - Landlock for the filesystem: read everything but the secrets and the raw devices, write
//!   the writable roots and the private temp dir; no signals or abstract sockets out of the
//!   domain, which also keeps `/proc/<pid>/environ` and `mem` of every outside process closed;
//! - seccomp for what no contained command needs: internet sockets (network off), ptrace,
//!   mounts, new namespaces, kernel modules, io_uring (it would bypass the socket filter),
//!   `TIOCSTI` (typing into the user's terminal), leaving the process group.
//!
//! Everything that allocates is done in the parent ([`prepare`]); the child ([`apply`]) makes
//! only system calls on prepared data, as code between fork and exec must.

use std::collections::BTreeMap;
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use super::SandboxError;
use super::policy::{Mode, Network, Policy};

/// What this kernel offers, probed once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Support {
    /// The Landlock ABI version (0: none).
    pub landlock_abi: i32,
    pub seccomp: bool,
    pub root: bool,
    /// Whether a mount namespace can be made (as root, or through a user namespace).
    pub mount_namespaces: bool,
}

impl Support {
    pub fn probe() -> Support {
        // SAFETY: with a null attribute, size 0 and the VERSION flag the call only returns
        // the ABI version; it reads and writes no memory.
        let abi = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<u8>(),
                0usize,
                1u32,
            )
        };
        // SAFETY: prctl(PR_GET_SECCOMP) only returns the calling thread's mode.
        let seccomp = unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } >= 0
            && seccomp_arch().is_some();
        // SAFETY: geteuid cannot fail and touches no memory.
        let root = unsafe { libc::geteuid() } == 0;
        Support {
            landlock_abi: i32::try_from(abi).unwrap_or(0).max(0),
            seccomp,
            root,
            mount_namespaces: mount_namespaces_work(root),
        }
    }

    /// Landlock's ABI 2 (file renames across directories) is the floor: below it a build's
    /// renames inside the workspace would fail.
    pub fn can_contain(&self) -> bool {
        self.landlock_abi >= 2 && self.seccomp
    }
}

/// Whether a child can make the mount namespace `apply` makes: tried once per process, in
/// a child that exits at once. Sysctls can forbid user namespaces, and a container's own
/// seccomp profile (Docker's default) refuses `unshare` even to root; there the mount step
/// is left out and the start line says `landlock+seccomp`.
fn mount_namespaces_work(root: bool) -> bool {
    static WORKS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WORKS.get_or_init(|| {
        use std::os::unix::process::CommandExt;
        let flags = if root {
            libc::CLONE_NEWNS
        } else {
            libc::CLONE_NEWNS | libc::CLONE_NEWUSER
        };
        let mut probe = std::process::Command::new("/bin/sh");
        probe
            .args(["-c", "exit 0"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        // SAFETY: unshare is a system call on a plain integer, allowed between fork and exec.
        unsafe {
            probe.pre_exec(move || {
                if libc::unshare(flags) == 0 {
                    Ok(())
                } else {
                    Err(io::Error::last_os_error())
                }
            });
        }
        probe.status().is_ok_and(|s| s.success())
    })
}

fn seccomp_arch() -> Option<TargetArch> {
    std::env::consts::ARCH.try_into().ok()
}

/// One step of the child's mount namespace, in order.
struct Overlay {
    target: CString,
    kind: OverlayKind,
    /// The mount flags a remount must keep (a user namespace may not clear them).
    keep_flags: libc::c_ulong,
}

enum OverlayKind {
    /// A writable root bound over itself, so it is a mount of its own that the seal below
    /// can leave writable.
    Writable,
    /// Every mount of the tree made read-only at once (`mount_setattr`): what Landlock cannot
    /// refuse (chmod, chown, timestamps, extended attributes) fails outside the writable
    /// roots too.
    SealTree,
    /// A writable root's own mount made writable again after the seal.
    Unseal,
    /// The path itself, bound read-only over itself.
    ReadOnly,
    /// Bound over itself writable: a mountpoint cannot be renamed or removed, so a `.git`
    /// with protected paths inside cannot be swapped for a fresh one.
    Pinned,
    /// Hidden: an empty read-only tmpfs over a directory.
    HiddenDir,
    /// Hidden: `/dev/null` bound read-only over a file.
    HiddenFile,
}

struct Namespaces {
    flags: libc::c_int,
    /// `/proc/self/uid_map` and `gid_map` contents for an unprivileged user namespace.
    id_maps: Option<(Vec<u8>, Vec<u8>)>,
    overlays: Vec<Overlay>,
    loopback_up: bool,
}

/// Everything the child needs, built by the parent.
pub struct Prepared {
    namespaces: Option<Namespaces>,
    rlimits: Vec<(libc::__rlimit_resource_t, libc::rlimit)>,
    ruleset: Option<Arc<OwnedFd>>,
    /// Applied in order; the first installed is evaluated last, so the socket filter's
    /// `EACCES` and clone3's `ENOSYS` each come from a filter of their own.
    filters: Arc<Vec<BpfProgram>>,
}

/// Which step of [`apply`] failed, carried in the error code the child hands back (std
/// reports a pre-exec error to the parent as a raw OS error).
const STEP_BASE: i32 = 1 << 16;
const STEPS: [&str; 9] = [
    "unshare",
    "user namespace id maps",
    "mount propagation",
    "read-only mounts",
    "loopback interface",
    "resource limits",
    "dropping capabilities",
    "landlock",
    "seccomp",
];

/// The step and errno of a code made by `fail`, if it is one.
pub fn decode_step(raw: i32) -> Option<(&'static str, io::Error)> {
    let step = usize::try_from(raw / STEP_BASE).ok()?.checked_sub(1)?;
    Some((
        STEPS.get(step)?,
        io::Error::from_raw_os_error(raw % STEP_BASE),
    ))
}

fn fail(step: usize) -> io::Error {
    let errno = io::Error::last_os_error().raw_os_error().unwrap_or(0);
    io::Error::from_raw_os_error((step as i32 + 1) * STEP_BASE + errno.clamp(0, STEP_BASE - 1))
}

/// Builds the child's rules for `policy`, with `temp_dir` writable.
pub fn prepare(
    policy: &Policy,
    temp_dir: &Path,
    support: &Support,
    cache: &RulesCache,
    cpu_seconds: Option<u64>,
) -> Result<Prepared, SandboxError> {
    let contained = policy.mode != Mode::FullAccess;
    let rlimits = rlimits(policy, cpu_seconds);
    if !contained {
        return Ok(Prepared {
            namespaces: None,
            rlimits,
            ruleset: None,
            filters: Arc::new(Vec::new()),
        });
    }
    let writable = writable_roots(policy, temp_dir);
    let unreadable: Vec<PathBuf> = existing(&policy.unreadable_paths);
    let namespaces = namespaces(policy, &writable, &unreadable, support);
    let (ruleset, filters) = cache.rules(policy, &writable, &unreadable)?;
    Ok(Prepared {
        namespaces,
        rlimits,
        ruleset: Some(ruleset),
        filters,
    })
}

/// The Landlock ruleset and seccomp filters of a session, built once and built again only
/// when what they were built from changed: the writable roots, the closed paths, or the
/// entries of a directory whose siblings were granted one by one (a file created there
/// since would otherwise stay unreadable). A ruleset can restrict any number of processes.
#[derive(Default)]
pub struct RulesCache {
    cached: std::sync::Mutex<Option<Cached>>,
}

impl std::fmt::Debug for RulesCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RulesCache")
    }
}

struct Cached {
    writable: Vec<PathBuf>,
    unreadable: Vec<PathBuf>,
    /// Each directory listed while granting, with its modification time then.
    listed: Vec<(PathBuf, Option<std::time::SystemTime>)>,
    ruleset: Arc<OwnedFd>,
    filters: Arc<Vec<BpfProgram>>,
}

fn modified(dir: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(dir).and_then(|m| m.modified()).ok()
}

impl RulesCache {
    fn rules(
        &self,
        policy: &Policy,
        writable: &[PathBuf],
        unreadable: &[PathBuf],
    ) -> Result<(Arc<OwnedFd>, Arc<Vec<BpfProgram>>), SandboxError> {
        let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = cached.as_ref()
            && c.writable == writable
            && c.unreadable == unreadable
            && c.listed.iter().all(|(dir, when)| modified(dir) == *when)
        {
            return Ok((Arc::clone(&c.ruleset), Arc::clone(&c.filters)));
        }
        let mut listed = Vec::new();
        let ruleset = Arc::new(ruleset(policy, writable, unreadable, &mut listed)?);
        let filters = Arc::new(filters(policy.network)?);
        *cached = Some(Cached {
            writable: writable.to_vec(),
            unreadable: unreadable.to_vec(),
            listed,
            ruleset: Arc::clone(&ruleset),
            filters: Arc::clone(&filters),
        });
        Ok((ruleset, filters))
    }
}

fn writable_roots(policy: &Policy, temp_dir: &Path) -> Vec<PathBuf> {
    let mut roots = vec![temp_dir.to_path_buf()];
    if policy.mode == Mode::WorkspaceWrite {
        roots.extend(existing(&policy.writable_roots));
    }
    roots
}

/// The paths that exist, resolved (a secret behind a symlink is protected where it lives).
fn existing(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = paths
        .iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    out.sort();
    out.dedup();
    out
}

fn rlimits(
    policy: &Policy,
    cpu_seconds: Option<u64>,
) -> Vec<(libc::__rlimit_resource_t, libc::rlimit)> {
    let mut out = vec![(libc::RLIMIT_CORE, limit(0))];
    let cpu = cpu_seconds.or(policy.limits.cpu.map(|d| d.as_secs().max(1)));
    if let Some(cpu) = cpu {
        out.push((libc::RLIMIT_CPU, limit(cpu)));
    }
    if let Some(size) = policy.limits.file_size {
        out.push((libc::RLIMIT_FSIZE, limit(size)));
    }
    if let Some(extra) = policy.limits.extra_processes {
        // RLIMIT_NPROC counts every process of the user, so the limit sits above what the
        // whole system runs now (loadavg's fourth field: running/total).
        let total = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|t| {
                t.split_whitespace()
                    .nth(3)
                    .and_then(|f| f.split('/').nth(1))
                    .and_then(|n| n.parse::<u64>().ok())
            })
            .unwrap_or(32_768);
        out.push((libc::RLIMIT_NPROC, limit(total + extra)));
    }
    out
}

fn limit(value: u64) -> libc::rlimit {
    libc::rlimit {
        rlim_cur: value,
        rlim_max: value,
    }
}

/// The mount namespace `policy` needs: the writable roots kept writable, the rest of the
/// tree sealed read-only, then the protected paths inside writable roots made read-only and
/// the secrets inside them hidden.
fn namespaces(
    policy: &Policy,
    writable: &[PathBuf],
    unreadable: &[PathBuf],
    support: &Support,
) -> Option<Namespaces> {
    if !support.mount_namespaces {
        return None;
    }
    let inside = |p: &Path| writable.iter().any(|w| p.starts_with(w));
    let mut keep_writable: Vec<PathBuf> = writable.to_vec();
    // Shared memory is how processes of one program talk (Python's multiprocessing).
    if Path::new("/dev/shm").is_dir() {
        keep_writable.push(PathBuf::from("/dev/shm"));
    }
    let mut overlays: Vec<Overlay> = keep_writable
        .iter()
        .filter_map(|w| overlay(w, OverlayKind::Writable))
        .collect();
    overlays.extend(overlay(Path::new("/"), OverlayKind::SealTree));
    overlays.extend(
        keep_writable
            .iter()
            .filter_map(|w| overlay(w, OverlayKind::Unseal)),
    );
    let mut pinned: Vec<PathBuf> = Vec::new();
    for path in existing(&policy.read_only_paths) {
        if !inside(&path) {
            continue;
        }
        // A protected path inside a repository's `.git`: pin the `.git` first.
        if let Some(git) = path
            .ancestors()
            .find(|a| a.file_name().is_some_and(|n| n == ".git"))
            && git != path
            && !pinned.iter().any(|p| p == git)
        {
            pinned.push(git.to_path_buf());
            overlays.extend(overlay(git, OverlayKind::Pinned));
        }
        overlays.extend(overlay(&path, OverlayKind::ReadOnly));
    }
    for path in unreadable {
        if !inside(path) {
            continue;
        }
        let kind = if path.is_dir() {
            OverlayKind::HiddenDir
        } else {
            OverlayKind::HiddenFile
        };
        overlays.extend(overlay(path, kind));
    }
    let loopback = policy.network == Network::Loopback;
    let mut flags = libc::CLONE_NEWNS;
    if loopback {
        flags |= libc::CLONE_NEWNET;
    }
    let id_maps = (!support.root).then(|| {
        flags |= libc::CLONE_NEWUSER;
        // SAFETY: getuid and getgid cannot fail and touch no memory.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        (
            format!("{uid} {uid} 1").into_bytes(),
            format!("{gid} {gid} 1").into_bytes(),
        )
    });
    Some(Namespaces {
        flags,
        id_maps,
        overlays,
        loopback_up: loopback,
    })
}

fn overlay(path: &Path, kind: OverlayKind) -> Option<Overlay> {
    let target = CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs writes only into the zeroed struct we pass; the path is NUL-terminated.
    let keep_flags = unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(target.as_ptr(), &mut st) == 0 {
            st.f_flag
                & (libc::ST_NOSUID
                    | libc::ST_NODEV
                    | libc::ST_NOEXEC
                    | libc::ST_NOATIME
                    | libc::ST_NODIRATIME
                    | libc::ST_RELATIME)
        } else {
            0
        }
    };
    Some(Overlay {
        target,
        kind,
        keep_flags,
    })
}

/// Character devices a command may use; every other device node stays closed (a raw disk
/// would give root every file, secrets included).
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
    "/dev/shm",
    "/dev/fd",
    "/dev/stdin",
    "/dev/stdout",
    "/dev/stderr",
];

const ABI_TARGET: ABI = ABI::V7;

fn ruleset(
    policy: &Policy,
    writable: &[PathBuf],
    unreadable: &[PathBuf],
    listed: &mut Vec<(PathBuf, Option<std::time::SystemTime>)>,
) -> Result<OwnedFd, SandboxError> {
    let read = AccessFs::from_read(ABI_TARGET);
    let write = AccessFs::from_write(ABI_TARGET) & !(AccessFs::MakeChar | AccessFs::MakeBlock);
    let landlock = |e: landlock::RulesetError| SandboxError::Landlock(e.to_string());
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(ABI_TARGET))
        .map_err(landlock)?
        .scope(Scope::AbstractUnixSocket | Scope::Signal)
        .map_err(landlock)?;
    if policy.network == Network::Off {
        // Belt and braces beside the socket filter: no TCP bind or connect at all.
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(landlock)?;
    }
    let mut created = ruleset.create().map_err(landlock)?;
    let mut rules: Vec<(PathBuf, BitFlags<AccessFs>)> = Vec::new();
    // Listing a directory shows names only; the names of secrets are no secret.
    rules.push((PathBuf::from("/"), AccessFs::ReadDir.into()));
    let mut closed: Vec<PathBuf> = unreadable.to_vec();
    closed.push(PathBuf::from("/dev"));
    grant_except(
        Path::new("/"),
        read & !AccessFs::ReadDir,
        &closed,
        &mut rules,
        listed,
        0,
    );
    for device in DEVICES {
        rules.push((PathBuf::from(device), read | write));
    }
    for root in writable {
        grant_except(root, read | write, unreadable, &mut rules, listed, 0);
    }
    let file_access = AccessFs::from_file(ABI_TARGET);
    for (path, access) in rules {
        let Ok(fd) = PathFd::new(&path) else {
            continue;
        };
        let access = if path.is_dir() {
            access
        } else {
            access & file_access
        };
        if access.is_empty() {
            continue;
        }
        // A rule the kernel refuses (a pseudo filesystem) only grants less: skip it.
        created = match created.try_clone() {
            Ok(spare) => match created.add_rule(PathBeneath::new(fd, access)) {
                Ok(next) => next,
                Err(_) => spare,
            },
            Err(e) => return Err(SandboxError::Landlock(e.to_string())),
        };
    }
    let fd: Option<OwnedFd> = created.into();
    fd.ok_or_else(|| SandboxError::Landlock("the kernel made no ruleset".into()))
}

/// Grants `access` on `root`'s whole tree except the `closed` paths inside it: on `root`
/// itself when none lies inside, else on each of its entries, recursively. Symlinks are
/// skipped: a link's target is granted (or not) where it lives.
fn grant_except(
    root: &Path,
    access: BitFlags<AccessFs>,
    closed: &[PathBuf],
    rules: &mut Vec<(PathBuf, BitFlags<AccessFs>)>,
    listed: &mut Vec<(PathBuf, Option<std::time::SystemTime>)>,
    depth: usize,
) {
    if closed.iter().any(|c| c == root) {
        return;
    }
    if !closed.iter().any(|c| c.starts_with(root)) || depth > 32 {
        rules.push((root.to_path_buf(), access));
        return;
    }
    listed.push((root.to_path_buf(), modified(root)));
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        // Links are skipped, and so are sockets, pipes and devices Landlock takes no rule on.
        if !entry.file_type().is_ok_and(|t| t.is_dir() || t.is_file()) {
            continue;
        }
        grant_except(&entry.path(), access, closed, rules, listed, depth + 1);
    }
}

/// fchmodat2 (Linux 6.6), the same number on every architecture; not in every libc yet.
const FCHMODAT2: i64 = 452;

/// Syscalls no contained command needs.
fn denied_syscalls() -> Vec<i64> {
    let mut calls = vec![
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_pidfd_getfd,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_move_mount,
        libc::SYS_open_tree,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_reboot,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_open_by_handle_at,
        libc::SYS_name_to_handle_at,
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_userfaultfd,
        libc::SYS_acct,
        libc::SYS_settimeofday,
        libc::SYS_clock_settime,
        libc::SYS_clock_adjtime,
        libc::SYS_adjtimex,
        libc::SYS_quotactl,
        libc::SYS_vhangup,
        libc::SYS_setsid,
        libc::SYS_setpgid,
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([libc::SYS_iopl, libc::SYS_ioperm]);
    calls
}

fn filters(network: Network) -> Result<Vec<BpfProgram>, SandboxError> {
    let arch = seccomp_arch().ok_or_else(|| {
        SandboxError::Seccomp(format!("no filter for {}", std::env::consts::ARCH))
    })?;
    let seccomp = |e: seccompiler::BackendError| SandboxError::Seccomp(e.to_string());
    let cond = |arg: u8, op: SeccompCmpOp, value: u64| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(seccomp)
    };
    let rule = |c: SeccompCondition| SeccompRule::new(vec![c]).map_err(seccomp);

    let mut general: BTreeMap<i64, Vec<SeccompRule>> = denied_syscalls()
        .into_iter()
        .map(|s| (s, Vec::new()))
        .collect();
    // The request type is `c_ulong` or `c_int` depending on the C library.
    #[allow(clippy::unnecessary_cast)]
    general.insert(
        libc::SYS_ioctl,
        vec![
            rule(cond(1, SeccompCmpOp::Eq, libc::TIOCSTI as u64)?)?,
            rule(cond(1, SeccompCmpOp::Eq, libc::TIOCLINUX as u64)?)?,
        ],
    );
    let namespace_flags = [
        libc::CLONE_NEWNS,
        libc::CLONE_NEWUTS,
        libc::CLONE_NEWIPC,
        libc::CLONE_NEWUSER,
        libc::CLONE_NEWPID,
        libc::CLONE_NEWNET,
        libc::CLONE_NEWCGROUP,
    ];
    let mut clone_rules = Vec::new();
    for flag in namespace_flags {
        let flag = flag as u64;
        clone_rules.push(rule(cond(0, SeccompCmpOp::MaskedEq(flag), flag)?)?);
    }
    general.insert(libc::SYS_clone, clone_rules);
    // A set-user-ID or set-group-ID bit: root's sandbox would otherwise leave behind a
    // program that runs as root for anyone (Landlock does not cover chmod).
    let setid = |arg: u8| -> Result<Vec<SeccompRule>, SandboxError> {
        Ok(vec![
            rule(cond(
                arg,
                SeccompCmpOp::MaskedEq(libc::S_ISUID as u64),
                libc::S_ISUID as u64,
            )?)?,
            rule(cond(
                arg,
                SeccompCmpOp::MaskedEq(libc::S_ISGID as u64),
                libc::S_ISGID as u64,
            )?)?,
        ])
    };
    #[cfg(target_arch = "x86_64")]
    general.insert(libc::SYS_chmod, setid(1)?);
    general.insert(libc::SYS_fchmod, setid(1)?);
    general.insert(libc::SYS_fchmodat, setid(2)?);
    general.insert(FCHMODAT2, setid(2)?);
    let mut programs = Vec::new();
    let mut add =
        |rules: BTreeMap<i64, Vec<SeccompRule>>, errno: i32| -> Result<(), SandboxError> {
            let filter = SeccompFilter::new(
                rules,
                SeccompAction::Allow,
                SeccompAction::Errno(errno as u32),
                arch,
            )
            .map_err(seccomp)?;
            programs.push(BpfProgram::try_from(filter).map_err(seccomp)?);
            Ok(())
        };
    add(general, libc::EPERM)?;
    // clone3 passes its flags in memory a filter cannot read: "not implemented" makes the C
    // library fall back to clone, whose flags the filter above reads.
    add(
        BTreeMap::from([(libc::SYS_clone3, Vec::new())]),
        libc::ENOSYS,
    )?;
    if network == Network::Off {
        let domain = |d: i32| rule(cond(0, SeccompCmpOp::Ne, d as u64)?);
        // One rule with two conditions: not AF_UNIX and not AF_LOCAL's alias (the same).
        let not_unix = domain(libc::AF_UNIX)?;
        add(
            BTreeMap::from([(libc::SYS_socket, vec![not_unix])]),
            libc::EACCES,
        )?;
    }
    Ok(programs)
}

/// Applies `prepared` to the calling process.
///
/// # Safety
/// To be called in a forked child before exec (`CommandExt::pre_exec`): it makes system
/// calls only, allocates nothing, and changes the process's namespaces, mounts, limits and
/// privileges for good.
pub unsafe fn apply(prepared: &Prepared) -> io::Result<()> {
    // SAFETY (whole body): every call below takes pointers to data `prepared` owns, which
    // outlives the calls, or to locals; none keeps a pointer.
    unsafe {
        if let Some(ns) = &prepared.namespaces {
            if libc::unshare(ns.flags) != 0 {
                return Err(fail(0));
            }
            if let Some((uid_map, gid_map)) = &ns.id_maps
                && (!write_proc(c"/proc/self/setgroups", b"deny")
                    || !write_proc(c"/proc/self/uid_map", uid_map)
                    || !write_proc(c"/proc/self/gid_map", gid_map))
            {
                return Err(fail(1));
            }
            if ns.flags & libc::CLONE_NEWNS != 0 {
                if libc::mount(
                    std::ptr::null(),
                    c"/".as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                ) != 0
                {
                    return Err(fail(2));
                }
                for overlay in &ns.overlays {
                    if !mount_overlay(overlay) {
                        return Err(fail(3));
                    }
                }
                // The working directory still points into the mount it was entered on;
                // entered again by name, it is the writable bind on top.
                let mut cwd = [0 as libc::c_char; 4096];
                if !libc::getcwd(cwd.as_mut_ptr(), cwd.len()).is_null()
                    && libc::chdir(cwd.as_ptr()) != 0
                {
                    return Err(fail(3));
                }
            }
            if ns.loopback_up && !loopback_up() {
                return Err(fail(4));
            }
        }
        for (resource, value) in &prepared.rlimits {
            if libc::setrlimit(*resource, value) != 0 {
                return Err(fail(5));
            }
        }
        if prepared.ruleset.is_some() {
            drop_capabilities();
        }
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(fail(6));
        }
        if let Some(fd) = &prepared.ruleset
            && libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0u32) != 0
        {
            return Err(fail(7));
        }
        for filter in prepared.filters.iter() {
            if seccompiler::apply_filter(filter).is_err() {
                return Err(fail(8));
            }
        }
    }
    Ok(())
}

unsafe fn write_proc(path: &std::ffi::CStr, data: &[u8]) -> bool {
    // SAFETY: the caller's contract; the path is NUL-terminated and data is borrowed.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return false;
        }
        let written = libc::write(fd, data.as_ptr().cast(), data.len());
        libc::close(fd);
        written == data.len() as isize
    }
}

unsafe fn mount_overlay(overlay: &Overlay) -> bool {
    let target = overlay.target.as_ptr();
    let null = std::ptr::null::<libc::c_char>();
    let no_data = std::ptr::null::<libc::c_void>();
    let readonly = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | overlay.keep_flags;
    // SAFETY: the caller's contract; every string is NUL-terminated and owned by `overlay`
    // or static.
    unsafe {
        match overlay.kind {
            OverlayKind::Writable => {
                libc::mount(target, target, null, libc::MS_BIND | libc::MS_REC, no_data) == 0
            }
            OverlayKind::SealTree => set_read_only(target, true, libc::AT_RECURSIVE),
            OverlayKind::Unseal => set_read_only(target, false, 0),
            OverlayKind::Pinned => {
                libc::mount(target, target, null, libc::MS_BIND | libc::MS_REC, no_data) == 0
            }
            OverlayKind::ReadOnly => {
                libc::mount(target, target, null, libc::MS_BIND | libc::MS_REC, no_data) == 0
                    && libc::mount(null, target, null, readonly, no_data) == 0
            }
            OverlayKind::HiddenDir => {
                libc::mount(
                    c"tmpfs".as_ptr(),
                    target,
                    c"tmpfs".as_ptr(),
                    libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    c"size=4k,mode=000".as_ptr().cast(),
                ) == 0
            }
            OverlayKind::HiddenFile => {
                libc::mount(c"/dev/null".as_ptr(), target, null, libc::MS_BIND, no_data) == 0
                    && libc::mount(null, target, null, readonly, no_data) == 0
            }
        }
    }
}

/// Sets or clears the read-only attribute of the mount at `target` (and every mount below
/// it with `AT_RECURSIVE`). A kernel without `mount_setattr` (before 5.12) leaves the tree
/// as it was: Landlock still refuses every write there.
unsafe fn set_read_only(target: *const libc::c_char, read_only: bool, flags: libc::c_int) -> bool {
    #[repr(C)]
    struct MountAttr {
        attr_set: u64,
        attr_clr: u64,
        propagation: u64,
        userns_fd: u64,
    }
    const MOUNT_ATTR_RDONLY: u64 = 1;
    let attr = MountAttr {
        attr_set: if read_only { MOUNT_ATTR_RDONLY } else { 0 },
        attr_clr: if read_only { 0 } else { MOUNT_ATTR_RDONLY },
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: the caller's contract; the kernel reads `attr`, a local of the size passed.
    let done = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            target,
            flags as libc::c_uint,
            &attr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    done == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::ENOSYS)
}

/// `ip link set lo up` in the new network namespace.
unsafe fn loopback_up() -> bool {
    #[repr(C)]
    struct IfReq {
        name: [u8; 16],
        flags: libc::c_short,
        _pad: [u8; 22],
    }
    let mut req = IfReq {
        name: [0; 16],
        flags: 0,
        _pad: [0; 22],
    };
    req.name[..2].copy_from_slice(b"lo");
    // SAFETY: the caller's contract; `req` is a local the ioctls read and write in place.
    unsafe {
        let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if s < 0 {
            return false;
        }
        let ok = libc::ioctl(s, libc::SIOCGIFFLAGS, &mut req) == 0 && {
            req.flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
            libc::ioctl(s, libc::SIOCSIFFLAGS, &req) == 0
        };
        libc::close(s);
        ok
    }
}

/// Empties the bounding set and every capability set, so root inside the sandbox holds no
/// privilege (nor regains one at exec). Unprivileged callers have none to drop: their
/// `EPERM` is expected and ignored.
unsafe fn drop_capabilities() {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    // SAFETY: the caller's contract; capset reads the two locals.
    unsafe {
        for cap in 0..64 {
            libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        let header = Header {
            version: 0x2008_0522,
            pid: 0,
        };
        let data = [
            Data {
                effective: 0,
                permitted: 0,
                inheritable: 0,
            },
            Data {
                effective: 0,
                permitted: 0,
                inheritable: 0,
            },
        ];
        libc::syscall(libc::SYS_capset, &header, data.as_ptr());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_survives_the_trip_through_an_os_error_code() {
        let code = (8 * STEP_BASE) + libc::EPERM;
        let Some((step, err)) = decode_step(code) else {
            panic!("not decoded")
        };
        assert_eq!(step, "landlock");
        assert_eq!(err.raw_os_error(), Some(libc::EPERM));
        assert!(decode_step(libc::ENOENT).is_none());
    }

    #[test]
    fn grant_except_opens_the_siblings_of_a_closed_path_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        for d in ["a", "b/secret", "b/open", "c"] {
            std::fs::create_dir_all(root.join(d)).expect("mkdir");
        }
        std::os::unix::fs::symlink(root.join("b/secret"), root.join("link")).expect("symlink");
        let (mut rules, mut listed) = (Vec::new(), Vec::new());
        grant_except(
            root,
            AccessFs::ReadFile.into(),
            &[root.join("b/secret")],
            &mut rules,
            &mut listed,
            0,
        );
        let listed: Vec<&Path> = listed.iter().map(|(p, _)| p.as_path()).collect();
        assert_eq!(listed, [root, &root.join("b")]);
        let mut granted: Vec<String> = rules
            .iter()
            .map(|(p, _)| p.strip_prefix(root).unwrap_or(p).display().to_string())
            .collect();
        granted.sort();
        assert_eq!(granted, ["a", "b/open", "c"]);
    }

    #[test]
    fn the_mount_namespace_probe_agrees_with_unshare() {
        let support = Support::probe();
        let mut args = vec!["--mount"];
        if !support.root {
            args.push("--user");
        }
        let Ok(status) = std::process::Command::new("unshare")
            .args(&args)
            .arg("true")
            .stderr(std::process::Stdio::null())
            .status()
        else {
            eprintln!("skipped: no unshare(1) to compare with");
            return;
        };
        assert_eq!(support.mount_namespaces, status.success());
    }

    #[test]
    fn the_filters_build_for_each_network_setting() {
        assert_eq!(filters(Network::Off).map(|f| f.len()).ok(), Some(3));
        assert_eq!(filters(Network::On).map(|f| f.len()).ok(), Some(2));
    }
}
