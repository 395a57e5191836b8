//! The skill folder itself: walking it without ever following a symlink or blocking on a
//! FIFO, and the structural checks — file counts and sizes, symlinks that leave the skill or
//! loop, special files, executable bits, native binaries and archives.

use std::fs;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::catalogue::ids;
use super::ignore::{IGNORE_FILES, Ignore};
use crate::skills::discover::Listed;

/// Most files a skill should have.
pub const MAX_FILES: usize = 50;
/// Largest total size of a skill's files.
pub const MAX_TOTAL_BYTES: u64 = 1024 * 1024;
/// Largest single file.
pub const MAX_FILE_BYTES: u64 = 256 * 1024;

/// Extensions of compiled programs and installers.
const BINARY_EXTENSIONS: &[&str] = &[
    "exe", "dll", "so", "dylib", "bin", "dat", "com", "msi", "dmg", "app", "deb", "rpm",
];

/// Extensions whose files may carry the executable bit.
const SCRIPT_EXTENSIONS: &[&str] = &["sh", "bash", "zsh", "py", "rb", "pl", "js", "mjs", "ts"];

/// Zip-based document formats: archives technically, documents in practice.
const DOCUMENT_ZIPS: &[&str] = &[
    "docx", "xlsx", "pptx", "odt", "ods", "odp", "epub", "key", "pages", "numbers", "vsix",
];

/// A regular file of the skill, to be read and scanned (read from the file [`open_each`]
/// opened, or handed over in memory: no path needed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    pub rel: String,
    pub size: u64,
    pub executable: bool,
}

/// A structural fact found while walking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    pub rule: &'static str,
    /// `/`-separated path inside the skill, or `.` for the folder.
    pub file: String,
    pub detail: String,
}

/// A regular file the walk listed, not yet opened: [`open_each`] learns its size and mode
/// from the open file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub rel: String,
    pub path: PathBuf,
}

/// What a walk found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Walked {
    pub files: Vec<Found>,
    pub facts: Vec<Fact>,
    /// Files counted against the limits (regular files and symlinks, ignored ones excluded).
    pub count: usize,
}

/// Walks `dir` (a skill folder) in sorted order. Symlinks are never followed: each is
/// resolved once and reported when it leaves the skill, dangles or loops; one that stays
/// inside needs no scan of its own, its target is scanned where it lives. `.git` is skipped.
pub fn walk(dir: &Path) -> Walked {
    walk_listed(dir, None)
}

/// [`walk`], given the listing of `dir` itself when the caller already has it (the walk that
/// found the skill read it), so that the folder is not read twice.
pub fn walk_listed(dir: &Path, listing: Option<Vec<Listed>>) -> Walked {
    let mut walked = Walked::default();
    let mut entries = Vec::new();
    let listing = match listing {
        Some(listing) => Ok(listing),
        None => list(dir),
    };
    match listing {
        Ok(listing) => collect(dir, Path::new(""), listing, &mut entries, &mut walked.facts),
        Err(err) => walked.facts.push(Fact {
            rule: ids::UNREADABLE,
            file: rel_string(Path::new("")),
            detail: err.to_string(),
        }),
    }
    // The ignore files sit at the top of the skill; read them from what the walk found
    // rather than probing for them.
    let ignore_text: String = entries
        .iter()
        .filter(|e| IGNORE_FILES.contains(&e.rel.as_str()) && e.file_type.is_file())
        .filter_map(|e| fs::read_to_string(&e.path).ok())
        .map(|text| text + "\n")
        .collect();
    let ignore = Ignore::parse(&ignore_text);
    // Resolved once, and only when a symlink needs judging.
    let mut root: Option<PathBuf> = None;
    for Entry {
        rel,
        path,
        file_type,
    } in entries
    {
        if ignore.ignores(&rel) {
            continue;
        }
        if file_type.is_symlink() {
            walked.count += 1;
            let root = root
                .get_or_insert_with(|| fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()));
            if let Some(fact) = check_symlink(&path, root, &rel) {
                walked.facts.push(fact);
            }
            continue;
        }
        if !file_type.is_file() {
            walked.count += 1;
            walked.facts.push(Fact {
                rule: ids::SPECIAL_FILE,
                file: rel,
                detail: special_kind(&file_type).to_string(),
            });
            continue;
        }
        walked.count += 1;
        walked.files.push(Found { rel, path });
    }
    if walked.count > MAX_FILES {
        walked.facts.push(Fact {
            rule: ids::TOO_MANY_FILES,
            file: ".".to_string(),
            detail: format!("{} files (limit {MAX_FILES})", walked.count),
        });
    }
    walked
}

/// Opens the files a walk found, in its order, and hands each to `read` with what the open
/// file says of itself (size, executable bit); adds to `facts` each file over
/// [`MAX_FILE_BYTES`], the skill over [`MAX_TOTAL_BYTES`], and each file that could not be
/// opened or read (the error `read` returns).
///
/// The size comes from the open file (`fstat`), not from a `stat` of its path before the
/// open: one lookup of the path instead of two, for every file of every skill. The open does
/// not follow a symlink nor wait on a FIFO, either of which the listing may have missed (the
/// folder changed since): one is unreadable, the other a special file.
pub fn open_each(
    files: Vec<Found>,
    facts: &mut Vec<Fact>,
    mut read: impl FnMut(fs::File, &FileEntry) -> std::io::Result<()>,
) {
    use std::os::unix::fs::OpenOptionsExt;
    let mut total_bytes = 0u64;
    for Found { rel, path } in files {
        let opened = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(&path)
            .and_then(|file| Ok((file.metadata()?, file)));
        let (meta, file) = match opened {
            Ok(opened) => opened,
            Err(err) => {
                facts.push(Fact {
                    rule: ids::UNREADABLE,
                    file: rel,
                    detail: err.to_string(),
                });
                continue;
            }
        };
        if !meta.is_file() {
            facts.push(Fact {
                rule: ids::SPECIAL_FILE,
                file: rel,
                detail: special_kind(&meta.file_type()).to_string(),
            });
            continue;
        }
        total_bytes += meta.len();
        if meta.len() > MAX_FILE_BYTES {
            facts.push(Fact {
                rule: ids::OVERSIZED_FILE,
                file: rel.clone(),
                detail: format!(
                    "{} KiB (limit {} KiB)",
                    meta.len() / 1024,
                    MAX_FILE_BYTES / 1024
                ),
            });
        }
        let entry = FileEntry {
            rel,
            size: meta.len(),
            executable: meta.permissions().mode() & 0o111 != 0,
        };
        if let Err(err) = read(file, &entry) {
            facts.push(Fact {
                rule: ids::UNREADABLE,
                file: entry.rel,
                detail: err.to_string(),
            });
        }
    }
    if total_bytes > MAX_TOTAL_BYTES {
        facts.push(Fact {
            rule: ids::OVERSIZED_SKILL,
            file: ".".to_string(),
            detail: format!(
                "{} KiB in total (limit {} KiB)",
                total_bytes / 1024,
                MAX_TOTAL_BYTES / 1024
            ),
        });
    }
}

/// A non-folder entry found by the walk.
struct Entry {
    rel: String,
    path: PathBuf,
    file_type: fs::FileType,
}

/// The entries of one folder, symlinks not followed.
fn list(dir: &Path) -> std::io::Result<Vec<Listed>> {
    fs::read_dir(dir)?
        .map(|entry| {
            let entry = entry?;
            Ok(Listed {
                file_type: entry.file_type()?,
                name: entry.file_name(),
            })
        })
        .collect()
}

/// Adds the files under `dir` (listed as `listing`) to `entries` in the order of a sorted
/// depth-first walk, descending into folders but `.git`; a folder that cannot be read is an
/// `unreadable` fact.
fn collect(
    dir: &Path,
    rel_dir: &Path,
    mut listing: Vec<Listed>,
    entries: &mut Vec<Entry>,
    facts: &mut Vec<Fact>,
) {
    listing.sort_by(|a, b| a.name.cmp(&b.name));
    for Listed { name, file_type } in listing {
        let path = dir.join(&name);
        let rel_path = rel_dir.join(&name);
        if !file_type.is_dir() {
            entries.push(Entry {
                rel: rel_string(&rel_path),
                path,
                file_type,
            });
            continue;
        }
        if name == ".git" {
            continue;
        }
        match list(&path) {
            Ok(inner) => collect(&path, &rel_path, inner, entries, facts),
            Err(err) => facts.push(Fact {
                rule: ids::UNREADABLE,
                file: rel_string(&rel_path),
                detail: err.to_string(),
            }),
        }
    }
}

fn rel_string(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn special_kind(file_type: &fs::FileType) -> &'static str {
    if file_type.is_fifo() {
        "named pipe (FIFO)"
    } else if file_type.is_socket() {
        "socket"
    } else if file_type.is_block_device() {
        "block device"
    } else if file_type.is_char_device() {
        "character device"
    } else {
        "special file"
    }
}

/// Judges a symlink by where it points, read from the link itself, so that a link to a key
/// the scanning machine happens not to have is judged like one to a key it has. Python Hermes
/// crashes on a loop here (`RuntimeError` from `Path.resolve`); we report it.
fn check_symlink(path: &Path, root: &Path, rel: &str) -> Option<Fact> {
    let target = fs::read_link(path).unwrap_or_default();
    let shown = target.display().to_string();
    if let Some(store) = secret_store(&shown) {
        return Some(Fact {
            rule: ids::SYMLINK_TO_SECRET,
            file: rel.to_string(),
            detail: format!("-> {shown} ({store})"),
        });
    }
    // Relative to the canonical root, as the walk's own path to the link may not be.
    let link = root.join(rel);
    let lexical = lexical_join(link.parent().unwrap_or(root), &target);
    match fs::canonicalize(path) {
        Ok(resolved) if resolved.starts_with(root) => None,
        Ok(resolved) => Some(Fact {
            rule: ids::SYMLINK_ESCAPE,
            file: rel.to_string(),
            detail: format!("-> {}", resolved.display()),
        }),
        Err(err) if err.raw_os_error() == Some(40) => Some(Fact {
            rule: ids::SYMLINK_LOOP,
            file: rel.to_string(),
            detail: format!("-> {shown}"),
        }),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            // Where it would point on the machine that installs the skill matters, not
            // whether that place exists here.
            let escapes = !lexical.starts_with(root);
            Some(Fact {
                rule: if escapes {
                    ids::SYMLINK_ESCAPE
                } else {
                    ids::BROKEN_SYMLINK
                },
                file: rel.to_string(),
                detail: if escapes {
                    format!("-> {shown} (missing on this machine)")
                } else {
                    format!("-> {shown}")
                },
            })
        }
        Err(err) => Some(Fact {
            rule: ids::UNREADABLE,
            file: rel.to_string(),
            detail: err.to_string(),
        }),
    }
}

/// `base/target` with `.` and `..` resolved on the path alone, without the file system.
fn lexical_join(base: &Path, target: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = if target.is_absolute() {
        PathBuf::new()
    } else {
        base.to_path_buf()
    };
    for part in target.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Credential stores a link target can name, and what each holds.
const SECRET_STORES: &[(&str, &str)] = &[
    ("/.ssh", "SSH keys"),
    ("/.aws", "AWS credentials"),
    ("/.gnupg", "GPG keys"),
    ("/.kube", "Kubernetes credentials"),
    ("/.docker/config.json", "registry credentials"),
    ("/.config/gcloud", "Google Cloud credentials"),
    ("/.azure", "Azure credentials"),
    ("/.hermes/.env", "the agent's API keys"),
    ("/.netrc", "login credentials"),
    ("/.git-credentials", "git credentials"),
    ("/.npmrc", "registry tokens"),
    ("/.pypirc", "registry tokens"),
    ("/keychains", "the macOS keychain"),
    ("/etc/shadow", "password hashes"),
    ("/etc/sudoers", "sudo rules"),
    ("/id_rsa", "an SSH key"),
    ("/id_ed25519", "an SSH key"),
    ("/.password-store", "passwords"),
];

/// What a link target names when it is a credential store.
fn secret_store(target: &str) -> Option<&'static str> {
    let lower = format!("/{}", target.to_ascii_lowercase().trim_start_matches('/'));
    SECRET_STORES
        .iter()
        .find(|(needle, _)| {
            lower.contains(needle)
                && lower[lower.find(needle).unwrap_or(0) + needle.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| c == '/' || c == '.' || c == '_' || c == '-')
        })
        .map(|(_, what)| *what)
}

/// What the first bytes of a file say it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    Text,
    NativeBinary(&'static str),
    Archive(&'static str),
    OtherBinary,
}

/// Sniffs a file's first bytes.
pub fn sniff(head: &[u8]) -> Content {
    let starts = |magic: &[u8]| head.starts_with(magic);
    if starts(b"\x7fELF") {
        return Content::NativeBinary("ELF executable");
    }
    if starts(&[0xfe, 0xed, 0xfa, 0xce])
        || starts(&[0xfe, 0xed, 0xfa, 0xcf])
        || starts(&[0xce, 0xfa, 0xed, 0xfe])
        || starts(&[0xcf, 0xfa, 0xed, 0xfe])
        || (starts(&[0xca, 0xfe, 0xba, 0xbe]) && head.get(7).is_some_and(|&b| b < 0x20))
    {
        return Content::NativeBinary("Mach-O executable");
    }
    let has_nul = memchr::memchr(0, &head[..head.len().min(8192)]).is_some();
    if starts(b"MZ") && has_nul {
        return Content::NativeBinary("Windows executable");
    }
    if starts(b"PK\x03\x04") {
        return Content::Archive("zip");
    }
    if starts(&[0x1f, 0x8b]) {
        return Content::Archive("gzip");
    }
    if starts(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        return Content::Archive("xz");
    }
    if starts(b"BZh") && has_nul {
        return Content::Archive("bzip2");
    }
    if starts(b"7z\xbc\xaf\x27\x1c") {
        return Content::Archive("7z");
    }
    if starts(b"Rar!") {
        return Content::Archive("rar");
    }
    if head.len() > 262 && &head[257..262] == b"ustar" {
        return Content::Archive("tar");
    }
    if has_nul {
        Content::OtherBinary
    } else {
        Content::Text
    }
}

/// Structural facts that need a file's content: native code, archives, suspicious
/// extensions, executable bits on non-scripts.
pub fn content_facts(entry: &FileEntry, content: Content, head: &[u8]) -> Vec<Fact> {
    let mut facts = Vec::new();
    let ext = entry
        .rel
        .rsplit('/')
        .next()
        .and_then(|name| name.rsplit_once('.'))
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match content {
        Content::NativeBinary(kind) => facts.push(Fact {
            rule: ids::NATIVE_BINARY,
            file: entry.rel.clone(),
            detail: kind.to_string(),
        }),
        Content::Archive(kind) if !DOCUMENT_ZIPS.contains(&ext.as_str()) => facts.push(Fact {
            rule: ids::ARCHIVE_FILE,
            file: entry.rel.clone(),
            detail: format!("{kind} archive"),
        }),
        _ if BINARY_EXTENSIONS.contains(&ext.as_str()) => facts.push(Fact {
            rule: ids::BINARY_EXTENSION,
            file: entry.rel.clone(),
            detail: format!(".{ext}"),
        }),
        _ => {}
    }
    let script = SCRIPT_EXTENSIONS.contains(&ext.as_str()) || head.starts_with(b"#!");
    if entry.executable && !script && !matches!(content, Content::NativeBinary(_)) {
        facts.push(Fact {
            rule: ids::UNEXPECTED_EXECUTABLE,
            file: entry.rel.clone(),
            detail: "executable bit set".to_string(),
        });
    }
    facts
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn rules(w: &Walked) -> Vec<(&'static str, String)> {
        w.facts.iter().map(|f| (f.rule, f.file.clone())).collect()
    }

    #[test]
    fn symlinks_are_judged_never_followed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let skill = dir.path().join("s");
        fs::create_dir_all(skill.join("sub")).expect("mkdir");
        fs::write(skill.join("SKILL.md"), "x").expect("write");
        symlink("/etc/passwd", skill.join("escape")).expect("symlink");
        symlink("missing", skill.join("dangling")).expect("symlink");
        symlink("loop_b", skill.join("loop_a")).expect("symlink");
        symlink("loop_a", skill.join("loop_b")).expect("symlink");
        symlink("../..", skill.join("sub/up")).expect("symlink");
        symlink("SKILL.md", skill.join("inside")).expect("symlink");
        symlink("../../../../.ssh/id_rsa", skill.join("key")).expect("symlink");
        symlink("../elsewhere/missing.md", skill.join("gone")).expect("symlink");
        symlink(
            "/Users/x/Library/Keychains/login.keychain-db",
            skill.join("kc"),
        )
        .expect("symlink");
        let walked = walk(&skill);
        assert_eq!(
            rules(&walked),
            vec![
                (ids::BROKEN_SYMLINK, "dangling".to_string()),
                (ids::SYMLINK_ESCAPE, "escape".to_string()),
                (ids::SYMLINK_ESCAPE, "gone".to_string()),
                (ids::SYMLINK_TO_SECRET, "kc".to_string()),
                (ids::SYMLINK_TO_SECRET, "key".to_string()),
                (ids::SYMLINK_LOOP, "loop_a".to_string()),
                (ids::SYMLINK_LOOP, "loop_b".to_string()),
                (ids::SYMLINK_ESCAPE, "sub/up".to_string()),
            ]
        );
        assert_eq!(walked.files.len(), 1);
        assert_eq!(walked.count, 10);
    }

    /// A skill walked from the listing the discovery walk hands over is walked exactly as
    /// one read from scratch, and the listing is handed over whenever the folder was listed
    /// cleanly: support folders the discovery prunes, nested skills, links it follows.
    #[test]
    fn a_listing_from_discovery_walks_like_a_fresh_read() {
        use crate::skills::discover::{SKILL_FILE, walk_skill_folders};
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let write = |rel: &str| {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            fs::write(path, "x").expect("write");
        };
        for rel in [
            "a/SKILL.md",
            "a/references/r.md",
            "a/scripts/s.sh",
            "a/templates/deep/t.md",
            "a/nested/SKILL.md",
            "a/nested/assets/x.png",
            "a/.git/config",
            "a/z.md",
            "b/SKILL.md",
            "c/sub/SKILL.md",
            "c/sub/scripts/run.py",
        ] {
            write(rel);
        }
        symlink("../b", root.join("a/linked-skill")).expect("symlink");
        symlink("missing", root.join("b/dangling")).expect("symlink");
        symlink("/etc/passwd", root.join("c/sub/escape")).expect("symlink");
        let mut seen = Vec::new();
        let problems = walk_skill_folders(root, SKILL_FILE, &mut |file, listing| {
            let skill = file.parent().expect("skill folder").to_path_buf();
            let listed = listing.is_some();
            assert_eq!(
                walk_listed(&skill, listing),
                walk(&skill),
                "{}",
                skill.display()
            );
            let rel = skill.strip_prefix(root).expect("under root").to_path_buf();
            seen.push((rel_string(&rel), listed));
        });
        seen.sort();
        assert_eq!(
            seen,
            vec![
                ("a".to_string(), true),
                // b (also reached through this link) holds a dangling link, which the
                // following walk reports instead of listing: that skill reads its folder.
                ("a/linked-skill".to_string(), false),
                ("a/nested".to_string(), true),
                ("b".to_string(), false),
                ("c/sub".to_string(), true),
            ]
        );
        assert_eq!(
            problems.len(),
            2,
            "the dangling link, once per way to it: {problems:?}"
        );
    }

    #[test]
    fn limits_and_special_files() {
        let dir = tempfile::tempdir().expect("tempdir");
        let skill = dir.path();
        for i in 0..51 {
            fs::write(skill.join(format!("f{i:02}.md")), "x").expect("write");
        }
        fs::write(skill.join("big.md"), vec![b'a'; 300 * 1024]).expect("write");
        let fifo = skill.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        fs::write(skill.join(".skillignore"), "f00.md\n").expect("write");
        let mut walked = walk(skill);
        let mut sizes = Vec::new();
        open_each(walked.files.clone(), &mut walked.facts, |_, entry| {
            sizes.push((entry.rel.clone(), entry.size));
            Ok(())
        });
        let facts = rules(&walked);
        assert!(facts.contains(&(ids::OVERSIZED_FILE, "big.md".to_string())));
        assert!(facts.contains(&(ids::TOO_MANY_FILES, ".".to_string())));
        assert!(!facts.contains(&(ids::OVERSIZED_SKILL, ".".to_string())));
        assert!(sizes.contains(&("big.md".to_string(), 300 * 1024)));
        assert!(sizes.contains(&("f01.md".to_string(), 1)));
        assert!(!sizes.iter().any(|(rel, _)| rel == "f00.md"), "ignored");
        if made.is_ok_and(|s| s.success()) {
            assert!(facts.contains(&(ids::SPECIAL_FILE, "pipe".to_string())));
        }
        fs::write(skill.join("big2.md"), vec![b'a'; 250 * 1024]).expect("write");
        fs::write(skill.join("big3.md"), vec![b'a'; 250 * 1024]).expect("write");
        fs::write(skill.join("big4.md"), vec![b'a'; 250 * 1024]).expect("write");
        let mut walked = walk(skill);
        open_each(walked.files.clone(), &mut walked.facts, |_, _| Ok(()));
        assert!(rules(&walked).contains(&(ids::OVERSIZED_SKILL, ".".to_string())));
    }

    /// The folder may change between its listing and the reads: a file that became a
    /// symlink is not followed, one that became a FIFO is not waited on, one that went is
    /// unreadable, and an error of the read itself is reported against its file.
    #[test]
    fn files_are_judged_as_opened_not_as_listed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let skill = dir.path();
        for name in ["SKILL.md", "gone.md", "link.md", "pipe.md", "fails.md"] {
            fs::write(skill.join(name), "x").expect("write");
        }
        let walked = walk(skill);
        assert_eq!(walked.files.len(), 5);
        fs::remove_file(skill.join("gone.md")).expect("rm");
        fs::remove_file(skill.join("link.md")).expect("rm");
        symlink("/etc/passwd", skill.join("link.md")).expect("symlink");
        fs::remove_file(skill.join("pipe.md")).expect("rm");
        let fifo = std::process::Command::new("mkfifo")
            .arg(skill.join("pipe.md"))
            .status()
            .is_ok_and(|s| s.success());
        let mut facts = Vec::new();
        let mut read = Vec::new();
        open_each(walked.files, &mut facts, |mut file, entry| {
            if entry.rel == "fails.md" {
                return Err(std::io::Error::other("disk on fire"));
            }
            let mut text = String::new();
            std::io::Read::read_to_string(&mut file, &mut text)?;
            read.push((entry.rel.clone(), text));
            Ok(())
        });
        assert_eq!(read, vec![("SKILL.md".to_string(), "x".to_string())]);
        let mut found: Vec<(&str, &str, &str)> = facts
            .iter()
            .map(|f| (f.rule, f.file.as_str(), f.detail.as_str()))
            .collect();
        if !fifo {
            found.retain(|f| f.1 != "pipe.md");
        }
        let gone = std::io::Error::from_raw_os_error(libc::ENOENT).to_string();
        let looped = std::io::Error::from_raw_os_error(libc::ELOOP).to_string();
        let mut expected = vec![
            (ids::UNREADABLE, "fails.md", "disk on fire"),
            (ids::UNREADABLE, "gone.md", gone.as_str()),
            (ids::UNREADABLE, "link.md", looped.as_str()),
        ];
        if fifo {
            expected.push((ids::SPECIAL_FILE, "pipe.md", "named pipe (FIFO)"));
        }
        found.sort();
        expected.sort();
        assert_eq!(found, expected);
    }

    #[test]
    fn sniffing() {
        assert_eq!(
            sniff(b"\x7fELF\x02\x01"),
            Content::NativeBinary("ELF executable")
        );
        assert_eq!(
            sniff(b"MZ\x90\x00"),
            Content::NativeBinary("Windows executable")
        );
        assert_eq!(sniff(b"MZ is a text"), Content::Text);
        assert_eq!(sniff(b"PK\x03\x04rest"), Content::Archive("zip"));
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n\x00\x00"), Content::OtherBinary);
        assert_eq!(sniff(b"# hello"), Content::Text);
    }
}
