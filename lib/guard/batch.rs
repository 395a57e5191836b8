//! Scanning many skills: resolving the paths a user gives into skill folders, and scanning
//! and linting them in parallel, results in input order.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::policy::Verdict;
use super::scan::{self, ScanOptions, SkillReport};
use crate::skills::discover::{self, Listed, SKILL_FILE};
use crate::skills::lint::{self, Issue, Level, Profile};

/// A path that cannot be scanned.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("{}: no such file or directory", .0.display())]
    NotFound(PathBuf),
    #[error("{}: not a skill folder or a SKILL.md file", .0.display())]
    NotASkill(PathBuf),
}

/// The skill folders named by `paths`: a folder holding `SKILL.md` is one skill, a
/// `SKILL.md` file names its folder, any other folder is walked as Hermes walks a skills
/// root. Duplicates are dropped, first occurrence kept. Walk problems come back as messages:
/// folders that could not be read (an error for the caller: a scan that could not read what
/// it was asked to scan has not passed) and symlink loops (warnings).
pub fn targets(paths: &[PathBuf]) -> Result<(Vec<PathBuf>, Problems), TargetError> {
    let (dirs, problems) = targets_with(paths, &mut |_, _, _| {})?;
    Ok((dirs.into_iter().map(|(_, dir)| dir).collect(), problems))
}

/// What [`targets_with`] hands each skill folder to: its number, its path, its listing.
pub type Found<'a> = dyn FnMut(usize, &Path, Option<Vec<Listed>>) + 'a;

/// [`targets`], handing each skill folder to `found` as soon as the walk has been through it
/// (each once, numbered from 0 in the order found), with the folder's listing when the walk
/// read it, so scanning can start before the walk ends and need not read the folder again.
/// The folders come back in [`targets`]' order, each with the number `found` was given.
pub fn targets_with(
    paths: &[PathBuf],
    found: &mut Found<'_>,
) -> Result<(Vec<(usize, PathBuf)>, Problems), TargetError> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut order: Vec<usize> = Vec::new();
    let mut problems = Problems::default();
    // A walk reaches each folder once, so only folders named by more than one path can
    // repeat: one root (the usual case) hashes no path.
    let overlap_possible = paths.len() > 1;
    let mut seen = HashSet::new();
    let mut take = |dir: PathBuf, listing: Option<Vec<Listed>>, dirs: &mut Vec<PathBuf>| {
        if !overlap_possible || seen.insert(dir.clone()) {
            found(dirs.len(), &dir, listing);
            dirs.push(dir);
        }
    };
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|_| TargetError::NotFound(path.clone()))?;
        let first = dirs.len();
        if meta.is_file() {
            if path.file_name().is_some_and(|n| n == SKILL_FILE) {
                let dir = path
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
                take(dir, None, &mut dirs);
                order.extend(first..dirs.len());
                continue;
            }
            return Err(TargetError::NotASkill(path.clone()));
        }
        if path.join(SKILL_FILE).is_file() {
            take(path.clone(), None, &mut dirs);
            order.extend(first..dirs.len());
            continue;
        }
        super::engine::expect_many_skills();
        let walk_problems = discover::walk_skill_folders(path, SKILL_FILE, &mut |file, listing| {
            if let Some(dir) = file.parent() {
                take(dir.to_path_buf(), listing, &mut dirs);
            }
        });
        // Hermes's order: by the path string of each SKILL.md within a walked root (`a-b/`
        // comes before `a/`, as `-` sorts before `/`).
        let mut walked: Vec<usize> = (first..dirs.len()).collect();
        walked.sort_by_cached_key(|&i| {
            dirs[i]
                .join(SKILL_FILE)
                .into_os_string()
                .into_encoded_bytes()
        });
        order.extend(walked);
        for problem in walk_problems {
            let line = format!("{}: {}", problem.path.display(), problem.message);
            match problem.unreadable {
                true => problems.unreadable.push(line),
                false => problems.warnings.push(line),
            }
        }
    }
    let mut dirs: Vec<Option<PathBuf>> = dirs.into_iter().map(Some).collect();
    let ordered = order
        .into_iter()
        .filter_map(|i| Some((i, dirs[i].take()?)))
        .collect();
    Ok((ordered, problems))
}

/// Finds the skills under `paths` and scans (and lints) them on the current rayon pool, each
/// skill starting as soon as the walk finds it; results in the order of [`targets`].
/// `found` is called once per skill found; `finish` once per skill scanned, on the thread
/// that scanned it, and what it returns is kept beside the result (progress, and output
/// rendered in parallel instead of after the last skill).
pub fn find_and_run<T: Send>(
    paths: &[PathBuf],
    options: &RunOptions,
    found: &(dyn Fn() + Sync),
    finish: &(dyn Fn(&SkillResult) -> T + Sync),
) -> Result<Ran<T>, TargetError> {
    // By the number each folder was found under: no path hashed or compared.
    let done: Mutex<Vec<Option<(SkillResult, T)>>> = Mutex::new(Vec::new());
    let walked = rayon::scope(|scope| {
        targets_with(paths, &mut |number, dir, listing| {
            found();
            let dir = dir.to_path_buf();
            let done = &done;
            scope.spawn(move |_| {
                let result = run_one(&dir, listing, options);
                let finished = finish(&result);
                let mut done = done.lock().unwrap_or_else(PoisonError::into_inner);
                if done.len() <= number {
                    done.resize_with(number + 1, || None);
                }
                done[number] = Some((result, finished));
            });
        })
    });
    let (dirs, problems) = walked?;
    let done = done.into_inner().unwrap_or_else(PoisonError::into_inner);
    Ok(in_order(&dirs, done, problems))
}

/// The skills' results in the order of [`targets`], what `finish` returned for each in the
/// same order, and what the walk could not do.
#[derive(Debug)]
pub struct Ran<T> {
    pub results: Vec<SkillResult>,
    pub finished: Vec<T>,
    pub problems: Problems,
}

/// [`find_and_run`] on the calling thread: each skill scanned as the walk hands it over.
pub fn find_and_run_here<T>(
    paths: &[PathBuf],
    options: &RunOptions,
    found: &dyn Fn(),
    finish: &dyn Fn(&SkillResult) -> T,
) -> Result<Ran<T>, TargetError> {
    let mut done: Vec<Option<(SkillResult, T)>> = Vec::new();
    let (dirs, problems) = targets_with(paths, &mut |number, dir, listing| {
        found();
        debug_assert_eq!(number, done.len(), "numbered in the order found");
        let result = run_one(dir, listing, options);
        let finished = finish(&result);
        done.push(Some((result, finished)));
    })?;
    Ok(in_order(&dirs, done, problems))
}

/// The results, by the number each folder was found under, in the order of `dirs`: moved
/// once each, straight into the two lists the caller keeps (a result is some 250 bytes,
/// and this runs after the last skill, while the other threads have nothing to do).
fn in_order<T>(
    dirs: &[(usize, PathBuf)],
    mut done: Vec<Option<(SkillResult, T)>>,
    problems: Problems,
) -> Ran<T> {
    let mut results = Vec::with_capacity(dirs.len());
    let mut finished = Vec::with_capacity(dirs.len());
    for &(number, _) in dirs {
        if let Some((result, kept)) = done.get_mut(number).and_then(Option::take) {
            results.push(result);
            finished.push(kept);
        }
    }
    Ran {
        results,
        finished,
        problems,
    }
}

/// What a walk could not do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Problems {
    /// `path: OS error` of each folder that could not be read.
    pub unreadable: Vec<String>,
    /// Symlink loops and dangling symlinks, not followed.
    pub warnings: Vec<String>,
}

/// What to do with each skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOptions {
    pub scan: ScanOptions,
    /// Lint with this profile (`None`: no linting).
    pub lint: Option<Profile>,
    /// Lint only, no security scan.
    pub lint_only: bool,
}

/// One skill's results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillResult {
    pub name: String,
    pub path: PathBuf,
    /// `None` with `--lint-only`.
    pub report: Option<SkillReport>,
    pub lint: Vec<Issue>,
    /// Findings dropped because the baseline knows them.
    pub baselined: usize,
    /// `path: OS error` of each file or folder of the skill that could not be read.
    pub unreadable: Vec<String>,
}

impl SkillResult {
    pub fn lint_count(&self, level: Level) -> usize {
        self.lint.iter().filter(|i| i.level == level).count()
    }
}

/// Scans (and lints) every skill folder, in parallel on the current rayon pool, results in
/// the order of `dirs`. `tick` is called once per finished skill (progress).
pub fn run(dirs: &[PathBuf], options: &RunOptions, tick: &(dyn Fn() + Sync)) -> Vec<SkillResult> {
    dirs.par_iter()
        .map(|dir| {
            let result = run_one(dir, None, options);
            tick();
            result
        })
        .collect()
}

fn run_one(dir: &Path, listing: Option<Vec<Listed>>, options: &RunOptions) -> SkillResult {
    let report = (!options.lint_only).then(|| scan::scan_skill_listed(dir, listing, &options.scan));
    let lint = options
        .lint
        .map(|profile| lint::lint_skill(dir, profile))
        .unwrap_or_default();
    let name = match &report {
        Some(report) => report.name.clone(),
        None => skill_name(dir),
    };
    let mut unreadable: Vec<String> = report
        .iter()
        .flat_map(|r| r.findings.iter().chain(&r.suppressed))
        .filter(|f| f.rule == super::catalogue::ids::UNREADABLE)
        .map(|f| format!("{}: {}", dir.join(&f.file).display(), f.excerpt))
        .collect();
    if options.lint_only {
        unreadable.extend(
            lint.iter()
                .filter(|i| i.rule == "skill-md-unreadable")
                .map(|i| format!("{}: {}", dir.join(&i.file).display(), i.message)),
        );
    }
    SkillResult {
        name,
        path: dir.to_path_buf(),
        report,
        lint,
        baselined: 0,
        unreadable,
    }
}

/// The name a skill is reported under without scanning it: the frontmatter name, else the
/// folder name.
fn skill_name(dir: &Path) -> String {
    let fallback = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string());
    std::fs::read_to_string(dir.join(SKILL_FILE))
        .ok()
        .and_then(|text| {
            crate::skills::frontmatter::parse(&text)
                .name()
                .map(str::to_string)
        })
        .filter(|n| !n.trim().is_empty())
        .unwrap_or(fallback)
}

/// Totals of a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub skills: usize,
    pub safe: usize,
    pub caution: usize,
    pub dangerous: usize,
    pub files: usize,
    pub bytes: u64,
    pub findings: usize,
    pub suppressed: usize,
    pub baselined: usize,
    pub lint_errors: usize,
    pub lint_warnings: usize,
    pub seconds: f64,
}

impl Summary {
    pub fn of(results: &[SkillResult], elapsed: Duration) -> Summary {
        let mut summary = Summary {
            skills: results.len(),
            seconds: elapsed.as_secs_f64(),
            ..Summary::default()
        };
        for result in results {
            if let Some(report) = &result.report {
                match report.verdict {
                    Verdict::Safe => summary.safe += 1,
                    Verdict::Caution => summary.caution += 1,
                    Verdict::Dangerous => summary.dangerous += 1,
                }
                summary.files += report.files;
                summary.bytes += report.bytes;
                summary.findings += report.findings.len();
                summary.suppressed += report.suppressed.len();
            }
            summary.baselined += result.baselined;
            summary.lint_errors += result.lint_count(Level::Error);
            summary.lint_warnings += result.lint_count(Level::Warning);
        }
        summary
    }
}

/// Times a closure.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let value = f();
    (value, start.elapsed())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn targets_resolve_like_the_contract_says() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        for rel in ["a/SKILL.md", "cat/b/SKILL.md", "node_modules/x/SKILL.md"] {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            fs::write(path, "---\nname: x\n---\nbody\n").expect("write");
        }
        let (dirs, problems) = targets(&[root.to_path_buf()]).expect("targets");
        assert_eq!(dirs, vec![root.join("a"), root.join("cat/b")]);
        assert_eq!(problems, Problems::default());
        let (one, _) = targets(&[root.join("a"), root.join("a/SKILL.md")]).expect("targets");
        assert_eq!(one, vec![root.join("a")]);
        // Ordered by the SKILL.md path string, as Hermes's walker: `a-b/` before `a/`.
        fs::create_dir_all(root.join("a-b")).expect("mkdir");
        fs::write(root.join("a-b/SKILL.md"), "---\nname: x\n---\nbody\n").expect("write");
        let (dirs, _) = targets(&[root.to_path_buf()]).expect("targets");
        assert_eq!(
            dirs,
            vec![root.join("a-b"), root.join("a"), root.join("cat/b")]
        );
        let (one, _) = targets(&[root.join("a"), root.join("a/SKILL.md")]).expect("targets");
        assert_eq!(one, vec![root.join("a")]);
        assert!(matches!(
            targets(&[root.join("missing")]),
            Err(TargetError::NotFound(_))
        ));
        fs::write(root.join("notes.txt"), "x").expect("write");
        assert!(matches!(
            targets(&[root.join("notes.txt")]),
            Err(TargetError::NotASkill(_))
        ));
    }
}
