//! Test helpers for the curate area: a synthetic home with every case the curator meets,
//! built the same way twice so Python and we can curate identical copies.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value as Json, json};

use super::TempHome;

/// The clock of the curation tests.
pub const NOW: &str = "2026-06-01T12:00:00Z";

/// `NOW` minus `days` (and `hours`), as Python's `isoformat()` writes it.
pub fn ago(days: i64, hours: i64) -> String {
    let now: jiff::Timestamp = NOW.parse().expect("NOW");
    let t = now
        .checked_sub(jiff::SignedDuration::from_hours(days * 24 + hours))
        .expect("in range");
    hermes_loop::clock::isoformat(t)
}

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: Synthetic skill {name}.\n---\n# {name}\n\nSteps.\n")
}

/// Builds a home of `n` synthetic skills plus fixed special ones, covering the reference's buckets and its
/// edge cases: categories, support files, bundled and hub skills, manual skills, legacy
/// markers, pins, cron references (disabled jobs, `/`-prefixed and legacy fields), naive
/// and microsecond timestamps, a frontmatter name that differs from its folder, archive
/// collisions, a record `archived` while its folder is live, and a folder without SKILL.md.
pub fn synthetic(home: &Path, n: usize) {
    let skills = home.join("skills");
    let mut usage = Map::new();
    let mut bundled = Vec::new();
    let mut hub = Map::new();
    let mut cron_skills: Vec<String> = Vec::new();
    let write = |rel: &str, text: &str| {
        let p = skills.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    };
    for i in 0..n {
        let name = format!("skill-{i:05}");
        let dir = if i % 2 == 0 {
            name.clone()
        } else {
            format!("cat-{:02}/{name}", i % 20)
        };
        write(&format!("{dir}/SKILL.md"), &skill_md(&name));
        if i % 5 == 0 {
            write(&format!("{dir}/references/notes.md"), "notes\n");
        }
        let d = i as i64;
        let record = match i % 19 {
            0..=6 => json!({"created_by": "agent", "use_count": 1 + d % 5,
                "last_used_at": ago(d % 29 + 1, d % 7), "created_at": ago(200, 0)}),
            7..=9 => {
                json!({"created_by": "agent", "use_count": 2, "last_used_at": ago(31 + d % 58, 0),
                "state": if i % 3 == 0 { "stale" } else { "active" }})
            }
            10..=12 => {
                json!({"created_by": "agent", "use_count": 1, "last_used_at": ago(91 + d % 300, 3),
                "state": if i % 2 == 0 { "active" } else { "stale" }})
            }
            13 | 14 => json!({"created_by": "agent", "use_count": 0, "created_at": ago(d % 29, 1)}),
            15 => json!({"created_by": "agent", "created_at": ago(d % 20, 0), "state": "stale"}),
            16 | 17 => json!({"created_by": "agent", "created_at": ago(31 + d % 58, 0),
                "view_count": 1, "last_viewed_at": "2026-03-01T10:00:00.250000+00:00"}),
            _ => json!({"created_by": "agent", "created_at": ago(91 + d % 100, 0)}),
        };
        usage.insert(name, record);
    }
    let specials = [
        (
            "pinned-ancient",
            json!({"created_by": "agent", "pinned": true, "created_at": ago(700, 0)}),
        ),
        (
            "stale-viewed",
            json!({"created_by": "agent", "use_count": 4, "state": "stale",
            "last_viewed_at": ago(2, 0), "last_used_at": ago(120, 0)}),
        ),
        (
            "manual-old",
            json!({"created_by": null, "created_at": ago(900, 0)}),
        ),
        ("bundled-a", Json::Null),
        ("bundled-b", Json::Null),
        (
            "hub-skill",
            json!({"created_by": "agent", "created_at": ago(900, 0)}),
        ),
        (
            "cron-disabled",
            json!({"created_by": "agent", "use_count": 1, "last_used_at": ago(400, 0)}),
        ),
        (
            "cron-slash",
            json!({"created_by": "agent", "use_count": 1, "last_used_at": ago(400, 0)}),
        ),
        (
            "cron-legacy",
            json!({"created_by": "agent", "created_at": ago(400, 0)}),
        ),
        (
            "legacy-marker",
            json!({"agent_created": true, "use_count": 1,
            "last_used_at": ago(95, 0).trim_end_matches("+00:00").to_string()}),
        ),
        (
            "archived-live",
            json!({"created_by": "agent", "use_count": 1, "last_used_at": ago(300, 0),
            "state": "archived", "archived_at": ago(299, 0)}),
        ),
        (
            "exactly-30",
            json!({"created_by": "agent", "use_count": 1, "last_used_at": ago(30, 0)}),
        ),
        (
            "exactly-90",
            json!({"created_by": "agent", "use_count": 1, "last_used_at": ago(90, 0),
            "extra_key": ["kept"]}),
        ),
    ];
    for (name, record) in specials {
        write(&format!("special/{name}/SKILL.md"), &skill_md(name));
        if name.starts_with("bundled") {
            bundled.push(name.to_string());
        }
        if name == "hub-skill" {
            hub.insert(
                name.into(),
                json!({"install_path": format!("special/{name}")}),
            );
        }
        if name.starts_with("cron-") {
            cron_skills.push(name.to_string());
        }
        if !record.is_null() {
            usage.insert(name.into(), record);
        }
    }
    // A folder whose frontmatter names another skill; two ancient skills sharing a folder
    // name in two categories (the second archive takes a suffix); a folder with no SKILL.md.
    write("tools/odd-dir/SKILL.md", &skill_md("odd-name"));
    usage.insert(
        "odd-name".into(),
        json!({"created_by": "agent", "use_count": 1, "last_used_at": ago(100, 0)}),
    );
    for (cat, name) in [("aa", "twin-a"), ("bb", "twin-b")] {
        write(&format!("{cat}/twin/SKILL.md"), &skill_md(name));
        usage.insert(
            name.into(),
            json!({"created_by": "agent", "use_count": 1, "last_used_at": ago(150, 0)}),
        );
    }
    std::fs::create_dir_all(skills.join("no-skill-md/references")).expect("mkdir");
    std::fs::write(skills.join("no-skill-md/references/x.md"), "x").expect("write");
    usage.insert(
        "no-skill-md".into(),
        json!({"created_by": "agent", "created_at": ago(900, 0)}),
    );
    std::fs::write(
        skills.join(".usage.json"),
        hermes_loop::io::pyjson::dumps(
            &Json::Object(usage),
            hermes_loop::io::pyjson::Dumps::SIDECAR,
        ),
    )
    .expect("usage");
    let mut manifest: String = bundled.iter().map(|b| format!("{b}:0123abcd\n")).collect();
    manifest.push_str("plan:ffff\n");
    write("plan/SKILL.md", &skill_md("plan"));
    std::fs::write(skills.join(".bundled_manifest"), manifest).expect("manifest");
    std::fs::create_dir_all(skills.join(".hub")).expect("hub");
    std::fs::write(
        skills.join(".hub/lock.json"),
        json!({"version": 1, "installed": hub}).to_string(),
    )
    .expect("lock");
    let mut jobs = Vec::new();
    for (k, name) in cron_skills.iter().enumerate() {
        jobs.push(match k % 3 {
            0 => json!({"id": format!("job{k}"), "name": format!("Job {k}"), "skills": [name], "enabled": false}),
            1 => json!({"id": format!("job{k}"), "skill": format!("/{name}"), "schedule": "0 * * * *"}),
            _ => json!({"id": format!("job{k}"), "skills": [" ", name, name], "skill": name, "state": "paused"}),
        });
    }
    std::fs::create_dir_all(home.join("cron")).expect("cron");
    std::fs::write(
        home.join("cron/jobs.json"),
        serde_json::to_string_pretty(&json!({"jobs": jobs, "updated_at": ago(1, 0)}))
            .expect("json"),
    )
    .expect("jobs");
}

/// Every file and folder under `dir` (relative, sorted), skipping the given top-level
/// names; files carry their contents.
pub fn tree(dir: &Path, skip: &[&str]) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(dir).min_depth(1).sort_by_file_name() {
        let entry = entry.expect("walk");
        let rel = entry.path().strip_prefix(dir).expect("rel");
        let top = rel
            .components()
            .next()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .unwrap_or_default();
        if skip.contains(&top.as_str()) {
            continue;
        }
        let contents = entry.file_type().is_file().then(|| {
            String::from_utf8_lossy(&std::fs::read(entry.path()).expect("read")).into_owned()
        });
        out.push((rel.display().to_string(), contents));
    }
    out
}

/// Asserts two tree listings are equal, naming the first difference.
pub fn assert_same_tree(
    a: &[(String, Option<String>)],
    b: &[(String, Option<String>)],
    what: &str,
) {
    assert_eq!(names(a), names(b), "{what}: the file lists differ");
    for ((name, x), (_, y)) in a.iter().zip(b) {
        assert_eq!(x, y, "{what}: {name} differs");
    }
}

/// The names in a tree listing.
pub fn names(tree: &[(String, Option<String>)]) -> Vec<String> {
    tree.iter().map(|(n, _)| n.clone()).collect()
}

/// Runs `hermes-curate ARGS` at [`NOW`] (or `now`), returning (code, stdout, stderr).
pub fn curate_at(home: &Path, now: &str, args: &[&str]) -> (i32, String, String) {
    let out = super::bin("hermes-curate", home)
        .env("HERMES_NOW", now)
        .args(args)
        .output()
        .expect("run hermes-curate");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub fn curate(home: &Path, args: &[&str]) -> (i32, String, String) {
    curate_at(home, NOW, args)
}

/// A home with the given `(relative path, text)` files.
pub fn home_with(files: &[(&str, &str)]) -> TempHome {
    let home = TempHome::new();
    for (rel, text) in files {
        home.write(rel, text);
    }
    home
}

/// A minimal SKILL.md for `name`.
pub fn skill(name: &str) -> String {
    skill_md(name)
}

/// The path of a file under the home's skills dir.
pub fn skills_path(home: &Path, rel: &str) -> PathBuf {
    home.join("skills").join(rel)
}
