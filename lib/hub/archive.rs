//! Unpacking a downloaded skill archive (`.tar.gz` or `.zip`) into memory, never onto the
//! disk as it is read: a member whose path leaves the skill, any link, device or FIFO, too many files
//! or too many bytes (counted after decompression, so a gzip bomb stops early) refuses the
//! whole archive.

use std::io::Read;

use super::HubError;
use super::bundle::{self, MAX_FILES, MAX_TOTAL_BYTES};

/// The files of a `.tar.gz`, paths normalised. When every file sits under one top folder
/// and there is no `SKILL.md` at the root, that folder is stripped (GitHub-style tarballs).
pub fn unpack(bytes: &[u8], what: &str) -> Result<Vec<(String, Vec<u8>)>, HubError> {
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        return unpack_zip(bytes, what).map(strip_top_folder);
    }
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Err(HubError::invalid(format!("{what}: not a gzip archive")));
    }
    let gz = flate2::read::GzDecoder::new(bytes).take(MAX_TOTAL_BYTES + (1 << 20));
    let mut archive = tar::Archive::new(gz);
    let mut members = Members::new(what);
    let entries = archive
        .entries()
        .map_err(|e| HubError::invalid(format!("{what}: malformed archive ({e})")))?;
    for entry in entries {
        let mut entry =
            entry.map_err(|e| HubError::invalid(format!("{what}: malformed archive ({e})")))?;
        let raw = entry.path_bytes().into_owned();
        let raw = String::from_utf8_lossy(&raw).into_owned();
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            continue;
        }
        if kind.is_symlink() || kind.is_hard_link() {
            return Err(HubError::refused(format!(
                "{what}: archive member {raw:?} is a link; links are refused"
            )));
        }
        if !(kind.is_file() || kind == tar::EntryType::Continuous) {
            if kind.is_pax_global_extensions() || kind.is_pax_local_extensions() {
                continue;
            }
            return Err(HubError::refused(format!(
                "{what}: archive member {raw:?} is not a regular file"
            )));
        }
        let size = entry.header().size().unwrap_or(u64::MAX);
        members.add(&raw, size, &mut entry)?;
    }
    // The stream ran into its cap (headers and folders count against no other limit): the
    // archive is cut there, so it is refused rather than unpacked in part.
    if archive.into_inner().limit() == 0 {
        return Err(HubError::TooLarge {
            what: what.to_string(),
            limit: MAX_TOTAL_BYTES,
        });
    }
    Ok(strip_top_folder(members.files))
}

/// The files of a `.zip`, with the same rules as a tarball.
fn unpack_zip(bytes: &[u8], what: &str) -> Result<Vec<(String, Vec<u8>)>, HubError> {
    let malformed =
        |e: zip::result::ZipError| HubError::invalid(format!("{what}: malformed archive ({e})"));
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(malformed)?;
    if archive.len() > MAX_FILES {
        return Err(HubError::refused(format!(
            "{what}: more than {MAX_FILES} files"
        )));
    }
    let mut members = Members::new(what);
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(malformed)?;
        let raw = String::from_utf8_lossy(entry.name_raw()).into_owned();
        if entry.is_dir() {
            continue;
        }
        if entry.is_symlink() {
            return Err(HubError::refused(format!(
                "{what}: archive member {raw:?} is a link; links are refused"
            )));
        }
        // Unix file type bits, when the archive records them: only regular files.
        if let Some(mode) = entry.unix_mode()
            && mode & 0o170000 != 0
            && mode & 0o170000 != 0o100000
        {
            return Err(HubError::refused(format!(
                "{what}: archive member {raw:?} is not a regular file"
            )));
        }
        let size = entry.size();
        members.add(&raw, size, &mut entry)?;
    }
    Ok(members.files)
}

/// The members of an archive read so far, under its limits.
struct Members<'a> {
    what: &'a str,
    files: Vec<(String, Vec<u8>)>,
    /// Bytes read so far, after decompression.
    total: u64,
}

impl<'a> Members<'a> {
    fn new(what: &'a str) -> Members<'a> {
        Members {
            what,
            files: Vec::new(),
            total: 0,
        }
    }

    /// Reads the regular file `raw` (declaring `size` bytes) from `reader`: its path must stay
    /// in the skill, and the file count and the bytes must stay within the limits.
    fn add(&mut self, raw: &str, size: u64, mut reader: impl Read) -> Result<(), HubError> {
        let what = self.what;
        let rel = bundle::normalize_path(raw).map_err(|_| {
            HubError::refused(format!(
                "{what}: archive member {raw:?} escapes the skill folder"
            ))
        })?;
        if self.files.len() >= MAX_FILES {
            return Err(HubError::refused(format!(
                "{what}: more than {MAX_FILES} files"
            )));
        }
        let too_large = || HubError::TooLarge {
            what: what.to_string(),
            limit: MAX_TOTAL_BYTES,
        };
        if self.total.saturating_add(size) > MAX_TOTAL_BYTES {
            return Err(too_large());
        }
        // Neither reader passes the declared size: a tar member ends there, and a zip member
        // that decompresses to more is an error. So the check above bounds what is read.
        let mut data = Vec::new();
        reader
            .read_to_end(&mut data)
            .map_err(|e| HubError::invalid(format!("{what}: malformed archive ({e})")))?;
        self.total += data.len() as u64;
        if self.files.iter().any(|(r, _)| *r == rel) {
            return Err(HubError::refused(format!(
                "{what}: archive member {rel:?} appears twice"
            )));
        }
        self.files.push((rel, data));
        Ok(())
    }
}

fn strip_top_folder(files: Vec<(String, Vec<u8>)>) -> Vec<(String, Vec<u8>)> {
    if files.iter().any(|(r, _)| r == "SKILL.md") {
        return files;
    }
    let Some(top) = files
        .first()
        .and_then(|(r, _)| r.split_once('/'))
        .map(|(t, _)| t.to_string())
    else {
        return files;
    };
    let prefix = format!("{top}/");
    if !files.iter().all(|(r, _)| r.starts_with(&prefix)) {
        return files;
    }
    files
        .into_iter()
        .map(|(r, b)| (r[prefix.len()..].to_string(), b))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targz(entries: &[(&str, &[u8], tar::EntryType)]) -> Vec<u8> {
        let mut builder = tar::Builder::new(Vec::new());
        for (path, data, kind) in entries {
            let mut header = tar::Header::new_gnu();
            // Raw name bytes, so hostile paths (`../x`) reach the archive unchanged.
            let name = &mut header.as_old_mut().name;
            name[..path.len()].copy_from_slice(path.as_bytes());
            header.set_entry_type(*kind);
            header.set_size(data.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            builder.append(&header, *data).unwrap_or_default();
        }
        let tar = builder.into_inner().unwrap_or_default();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &tar).unwrap_or_default();
        gz.finish().unwrap_or_default()
    }

    #[test]
    fn unpacks_and_strips_one_top_folder() {
        let bytes = targz(&[
            (
                "top/SKILL.md",
                b"---\nname: x\n---\n",
                tar::EntryType::Regular,
            ),
            ("top/references/a.md", b"a", tar::EntryType::Regular),
        ]);
        let files = unpack(&bytes, "t").unwrap_or_default();
        let names: Vec<&str> = files.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(names, ["SKILL.md", "references/a.md"]);
    }

    fn zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (path, data) in entries {
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated);
            writer.start_file(*path, options).unwrap_or_default();
            std::io::Write::write_all(&mut writer, data).unwrap_or_default();
        }
        writer.finish().map(|c| c.into_inner()).unwrap_or_default()
    }

    #[test]
    fn zips_unpack_with_the_same_rules() {
        let ok = zip(&[("top/SKILL.md", b"---\nname: x\n---\n"), ("top/a.md", b"a")]);
        let files = unpack(&ok, "t").unwrap_or_default();
        let names: Vec<&str> = files.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(names, ["SKILL.md", "a.md"]);
        let slip = zip(&[("SKILL.md", b""), ("../../evil.sh", b"x")]);
        assert!(matches!(unpack(&slip, "t"), Err(HubError::Refused(_))));
        assert!(matches!(
            unpack(b"PK\x03\x04junk", "t"),
            Err(HubError::Invalid(_))
        ));
    }

    #[test]
    fn refuses_escapes_and_links() {
        let slip = targz(&[("../evil.sh", b"x", tar::EntryType::Regular)]);
        assert!(matches!(unpack(&slip, "t"), Err(HubError::Refused(_))));
        let link = targz(&[("SKILL.md", b"", tar::EntryType::Symlink)]);
        assert!(matches!(unpack(&link, "t"), Err(HubError::Refused(_))));
        assert!(matches!(unpack(b"junk", "t"), Err(HubError::Invalid(_))));
    }

    fn message(result: Result<Vec<(String, Vec<u8>)>, HubError>) -> String {
        match result {
            Ok(files) => format!("unpacked {} files", files.len()),
            Err(e @ HubError::Refused(_)) => format!("refused: {e}"),
            Err(e @ HubError::Invalid(_)) => format!("invalid: {e}"),
            Err(e @ HubError::TooLarge { .. }) => format!("too large: {e}"),
            Err(e) => format!("other: {e}"),
        }
    }

    fn names(files: &[(String, Vec<u8>)]) -> Vec<&str> {
        files.iter().map(|(r, _)| r.as_str()).collect()
    }

    const REGULAR: tar::EntryType = tar::EntryType::Regular;

    /// A tarball member: path, bytes, type.
    type Member<'a> = (&'a str, &'a [u8], tar::EntryType);

    #[test]
    fn every_refusal_names_the_member_and_why() {
        let cases: [(&[Member], &str); 6] = [
            (
                &[("a/../../x.sh", b"x", REGULAR)],
                "refused: t: archive member \"a/../../x.sh\" escapes the skill folder",
            ),
            (
                &[("SKILL.md", b"", tar::EntryType::Symlink)],
                "refused: t: archive member \"SKILL.md\" is a link; links are refused",
            ),
            (
                &[("SKILL.md", b"", tar::EntryType::Link)],
                "refused: t: archive member \"SKILL.md\" is a link; links are refused",
            ),
            (
                &[("pipe", b"", tar::EntryType::Fifo)],
                "refused: t: archive member \"pipe\" is not a regular file",
            ),
            (
                &[("dev", b"", tar::EntryType::Char)],
                "refused: t: archive member \"dev\" is not a regular file",
            ),
            (
                &[("SKILL.md", b"1", REGULAR), ("./SKILL.md", b"2", REGULAR)],
                "refused: t: archive member \"SKILL.md\" appears twice",
            ),
        ];
        for (entries, want) in cases {
            assert_eq!(message(unpack(&targz(entries), "t")), want);
        }
        assert_eq!(
            message(unpack(b"junk", "t")),
            "invalid: t: not a gzip archive"
        );
        assert_eq!(
            message(unpack(&[0x1f], "t")),
            "invalid: t: not a gzip archive"
        );
        let cut = targz(&[("SKILL.md", &[7u8; 4000], REGULAR)]);
        assert!(
            message(unpack(&cut[..cut.len() / 2], "t"))
                .starts_with("invalid: t: malformed archive (")
        );
    }

    #[test]
    fn folders_and_pax_headers_are_passed_over_and_contents_kept() {
        let bytes = targz(&[
            ("top/", b"", tar::EntryType::Directory),
            ("pax", b"", tar::EntryType::XHeader),
            ("pax-global", b"", tar::EntryType::XGlobalHeader),
            ("top/SKILL.md", b"skill", REGULAR),
            ("top/scripts/run.sh", b"run", tar::EntryType::Continuous),
        ]);
        let Ok(files) = unpack(&bytes, "t") else {
            panic!("unpack")
        };
        assert_eq!(
            files,
            [
                ("SKILL.md".to_string(), b"skill".to_vec()),
                ("scripts/run.sh".to_string(), b"run".to_vec())
            ]
        );
    }

    #[test]
    fn a_top_folder_is_stripped_only_when_it_holds_everything_and_there_is_no_root_skill() {
        let strip = |paths: &[&str]| -> Vec<String> {
            strip_top_folder(paths.iter().map(|p| (p.to_string(), Vec::new())).collect())
                .into_iter()
                .map(|(r, _)| r)
                .collect()
        };
        assert_eq!(strip(&["t/SKILL.md", "t/a/b.md"]), ["SKILL.md", "a/b.md"]);
        assert_eq!(strip(&["SKILL.md", "t/b.md"]), ["SKILL.md", "t/b.md"]);
        assert_eq!(strip(&["t/SKILL.md", "u/b.md"]), ["t/SKILL.md", "u/b.md"]);
        assert_eq!(strip(&["t/SKILL.md", "tb.md"]), ["t/SKILL.md", "tb.md"]);
        assert_eq!(
            strip(&["README.md", "t/SKILL.md"]),
            ["README.md", "t/SKILL.md"]
        );
        assert_eq!(strip(&["t/x/SKILL.md"]), ["x/SKILL.md"]);
        assert!(strip(&[]).is_empty());
    }

    #[test]
    fn five_hundred_files_unpack_and_one_more_is_refused() {
        let paths: Vec<String> = (0..=MAX_FILES).map(|i| format!("f{i}")).collect();
        let entries: Vec<(&str, &[u8], tar::EntryType)> = paths
            .iter()
            .map(|p| (p.as_str(), &b"x"[..], REGULAR))
            .collect();
        let within = unpack(&targz(&entries[..MAX_FILES]), "t");
        assert_eq!(message(within), "unpacked 500 files");
        assert_eq!(
            message(unpack(&targz(&entries), "t")),
            "refused: t: more than 500 files"
        );
        let zipped: Vec<(&str, &[u8])> = paths.iter().map(|p| (p.as_str(), &b"x"[..])).collect();
        assert_eq!(
            message(unpack(&zip(&zipped[..MAX_FILES]), "t")),
            "unpacked 500 files"
        );
        assert_eq!(
            message(unpack(&zip(&zipped), "t")),
            "refused: t: more than 500 files"
        );
    }

    #[test]
    fn the_byte_limit_counts_what_is_unpacked_up_to_the_last_byte() {
        let limit = MAX_TOTAL_BYTES as usize;
        let at_limit = vec![0u8; limit];
        let files = unpack(
            &targz(&[
                ("SKILL.md", b"ab", REGULAR),
                ("big", &at_limit[2..], REGULAR),
            ]),
            "t",
        );
        assert_eq!(message(files), "unpacked 2 files");
        let over = targz(&[
            ("SKILL.md", b"abc", REGULAR),
            ("big", &at_limit[2..], REGULAR),
        ]);
        assert_eq!(
            message(unpack(&over, "t")),
            "too large: t is larger than the limit of 33554432 bytes"
        );
        let zipped = zip(&[("SKILL.md", b"abc"), ("big", &at_limit[2..])]);
        assert_eq!(
            message(unpack(&zipped, "t")),
            "too large: t is larger than the limit of 33554432 bytes"
        );
    }

    /// A zip of one member whose central directory records the Unix `mode` (file type bits
    /// included, which the writer would not set).
    fn zip_with_mode(mode: u32) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default().unix_permissions(0o644);
        writer.start_file("SKILL.md", options).unwrap_or_default();
        std::io::Write::write_all(&mut writer, b"s").unwrap_or_default();
        let mut bytes = writer.finish().map(|c| c.into_inner()).unwrap_or_default();
        let Some(at) = bytes.windows(4).position(|w| w == b"PK\x01\x02") else {
            panic!("no central directory")
        };
        // Made by Unix, and the external attributes' high half is the mode.
        bytes[at + 5] = 3;
        bytes[at + 38..at + 42].copy_from_slice(&(mode << 16).to_le_bytes());
        bytes
    }

    #[test]
    fn zip_members_are_judged_by_their_recorded_type() {
        assert_eq!(
            message(unpack(&zip_with_mode(0o100644), "t")),
            "unpacked 1 files"
        );
        assert_eq!(
            message(unpack(&zip_with_mode(0o644), "t")),
            "unpacked 1 files"
        );
        assert_eq!(
            message(unpack(&zip_with_mode(0o010644), "t")),
            "refused: t: archive member \"SKILL.md\" is not a regular file"
        );
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default();
        writer
            .add_symlink("SKILL.md", "/etc/passwd", options)
            .unwrap_or_default();
        let link = writer.finish().map(|c| c.into_inner()).unwrap_or_default();
        assert_eq!(
            message(unpack(&link, "t")),
            "refused: t: archive member \"SKILL.md\" is a link; links are refused"
        );
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        writer.add_directory("top/", options).unwrap_or_default();
        writer
            .start_file("top/SKILL.md", options)
            .unwrap_or_default();
        let with_dir = writer.finish().map(|c| c.into_inner()).unwrap_or_default();
        let Ok(files) = unpack(&with_dir, "t") else {
            panic!("zip with a folder")
        };
        assert_eq!(names(&files), ["SKILL.md"]);
        let empty = zip(&[]);
        assert!(empty.starts_with(b"PK\x05\x06"));
        assert_eq!(message(unpack(&empty, "t")), "unpacked 0 files");
    }

    #[test]
    fn a_stream_of_folders_stops_a_little_past_the_byte_limit() {
        // Folders count against no limit, but the decompressed stream does: 70,000 folder
        // headers are 35 MB of tar, past the 32 MiB limit and its 1 MiB of slack. The stream
        // is cut there, and a cut archive is refused, not unpacked in part.
        let names: Vec<String> = (0..70_000).map(|i| format!("d{i:05}/")).collect();
        let entries: Vec<(&str, &[u8], tar::EntryType)> = names
            .iter()
            .map(|n| (n.as_str(), &b""[..], tar::EntryType::Directory))
            .collect();
        assert_eq!(
            message(unpack(&targz(&entries), "t")),
            "too large: t is larger than the limit of 33554432 bytes"
        );
        // Within the slack the same kind of stream unpacks (to nothing).
        let few = &entries[..1000];
        assert_eq!(message(unpack(&targz(few), "t")), "unpacked 0 files");
    }

    /// A zip of `SKILL.md` and `big` (`size` bytes) whose directory says `big` holds 1 byte.
    fn lying_zip(size: usize) -> Vec<u8> {
        let mut bytes = zip(&[("SKILL.md", b"s"), ("big", &vec![0u8; size])]);
        let one = 1u32.to_le_bytes();
        let mut patched = 0;
        for at in 0..bytes.len().saturating_sub(46) {
            let sig: [u8; 4] = [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
            if &sig == b"PK\x03\x04" && &bytes[at + 30..at + 33] == b"big" {
                bytes[at + 22..at + 26].copy_from_slice(&one);
                patched += 1;
            }
            if &sig == b"PK\x01\x02" && &bytes[at + 46..at + 49] == b"big" {
                bytes[at + 24..at + 28].copy_from_slice(&one);
                patched += 1;
            }
        }
        assert_eq!(patched, 2);
        bytes
    }

    #[test]
    fn a_zip_member_that_decompresses_past_its_declared_size_is_refused() {
        let got = message(unpack(&lying_zip(MAX_TOTAL_BYTES as usize), "t"));
        assert!(got.starts_with("invalid: t: malformed archive ("), "{got}");
        let got = message(unpack(&lying_zip(2), "t"));
        assert!(got.starts_with("invalid: t: malformed archive ("), "{got}");
    }
}
