//! `config.yaml`, read the way Python Hermes reads it: YAML 1.1 (`off` is false), merged over
//! the defaults of `DEFAULT_CONFIG`, `${VAR}` expanded, and each key coerced as the Python code
//! that reads it coerces it (`int(v)`, `bool(v)`, `is_truthy_value(v)`, invalid → default).
//!
//! Unlike Python, a config.yaml that cannot be parsed is an error naming the file and line,
//! not a silent fall back to defaults: a cron job must not curate with settings the user did
//! not choose.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Home;
use crate::yaml::{self, Mapping, Value, YamlError};

/// Why config.yaml could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    // The messages carry their cause, which is therefore not also a `source()` (it would
    // print twice in an error chain).
    #[error("cannot read {}: {error}", path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{}: not UTF-8 text (invalid byte at offset {offset})", path.display())]
    Encoding { path: PathBuf, offset: usize },
    #[error("{}:{}: {}", path.display(), location(error), problem(error))]
    Parse {
        path: PathBuf,
        error: Box<YamlError>,
    },
    #[error("{}: the top level must be a mapping of sections, found a {found}", path.display())]
    NotMapping { path: PathBuf, found: &'static str },
}

fn location(err: &YamlError) -> String {
    match err.problem_mark.or(err.context_mark) {
        Some((line, column)) => format!("{line}:{column}"),
        None => "?".into(),
    }
}

fn problem(err: &YamlError) -> String {
    match (&err.context, err.context_mark) {
        (Some(context), Some((line, _))) => format!("{} ({context} at line {line})", err.problem),
        _ => err.problem.clone(),
    }
}

/// Everything the toolchain reads from config.yaml, with Python's defaults and coercions.
#[derive(Debug, Clone, Serialize)]
pub struct Config {
    pub memory: MemoryConfig,
    pub skills: SkillsConfig,
    pub curator: CuratorConfig,
    pub display: DisplayConfig,
    pub model: ModelConfig,
    pub auxiliary: AuxiliaryConfig,
    /// The user's config after `${VAR}` expansion, for keys this struct does not model.
    #[serde(skip)]
    raw: Value,
    #[serde(skip)]
    path: PathBuf,
    /// Values Hermes reads differently from how they look (`enabled: "false"` is true).
    #[serde(skip)]
    warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MemoryConfig {
    pub memory_enabled: bool,
    pub user_profile_enabled: bool,
    pub write_approval: bool,
    pub memory_char_limit: i64,
    pub user_char_limit: i64,
    pub nudge_interval: i64,
    pub provider: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SkillsConfig {
    /// Entries as written (stringified, stripped, blanks dropped); see
    /// [`SkillsConfig::external_dir_paths`] for the directories they name.
    pub external_dirs: Vec<String>,
    /// Globally disabled skill names, sorted.
    pub disabled: Vec<String>,
    /// Per-platform disabled names, unioned with `disabled` when that platform is in scope.
    pub platform_disabled: BTreeMap<String, Vec<String>>,
    pub template_vars: bool,
    pub inline_shell: bool,
    pub inline_shell_timeout: i64,
    pub guard_agent_created: bool,
    /// Whether the user set `guard_agent_created` at all (hermes-loop scans by default).
    pub guard_agent_created_set: bool,
    pub write_approval: bool,
    pub creation_nudge_interval: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CuratorConfig {
    pub enabled: bool,
    pub interval_hours: i64,
    pub min_idle_hours: f64,
    pub stale_after_days: i64,
    pub archive_after_days: i64,
    pub consolidate: bool,
    pub prune_builtins: bool,
    pub backup_enabled: bool,
    pub backup_keep: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct DisplayConfig {
    /// `off`, `on` or `verbose` (YAML booleans become `on`/`off`, other text is lowercased).
    pub memory_notifications: String,
}

/// The main model, after Hermes's normalisation (`model: name` shorthand, root-level
/// `provider`/`base_url`, the `api_base` alias, `model.model`/`model.name` → `default`).
#[derive(Debug, Clone, Serialize)]
pub struct ModelConfig {
    /// Empty means `auto`.
    pub provider: String,
    pub default: String,
    pub base_url: String,
    pub api_key: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct AuxiliaryConfig {
    pub background_review: AuxiliarySlot,
    pub curator: AuxiliarySlot,
    /// The deprecated `curator.auxiliary.*` slot, when present.
    pub legacy_curator: Option<AuxiliarySlot>,
}

/// A task's model override (`auxiliary.<task>.*`).
#[derive(Debug, Clone, Serialize)]
pub struct AuxiliarySlot {
    pub provider: String,
    pub model: String,
    pub base_url: String,
    pub api_key: String,
    pub timeout: f64,
    pub extra_body: serde_json::Value,
    pub reasoning_effort: String,
}

impl Config {
    /// Loads `<home>/config.yaml`; a missing file gives the defaults.
    pub fn load(home: &Home) -> Result<Config, ConfigError> {
        let path = home.config_yaml();
        match std::fs::read(&path) {
            Ok(bytes) => Config::from_bytes(&bytes, &path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Ok(Config::from_user(Value::Null, path))
            }
            Err(error) => Err(ConfigError::Read { path, error }),
        }
    }

    /// Parses config text that came from `path` (used in messages).
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Config, ConfigError> {
        let text = std::str::from_utf8(bytes).map_err(|e| ConfigError::Encoding {
            path: path.to_path_buf(),
            offset: e.valid_up_to(),
        })?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let user =
            yaml::load(text, &path.display().to_string()).map_err(|error| ConfigError::Parse {
                path: path.to_path_buf(),
                error: Box::new(error),
            })?;
        if !matches!(user, Value::Null | Value::Map(_)) {
            return Err(ConfigError::NotMapping {
                path: path.to_path_buf(),
                found: user.py_type_name(),
            });
        }
        Ok(Config::from_user(user, path.to_path_buf()))
    }

    /// `yaml` as a home's config.yaml, for unit tests (a test's own text always parses).
    #[cfg(test)]
    pub fn from_yaml(yaml: &str) -> Config {
        match Config::from_bytes(yaml.as_bytes(), Path::new("config.yaml")) {
            Ok(config) => config,
            Err(e) => panic!("the test's config.yaml does not parse: {e}"),
        }
    }

    /// The defaults, as when there is no config.yaml.
    pub fn defaults() -> Config {
        Config::from_user(Value::Null, PathBuf::from("config.yaml"))
    }

    fn from_user(user: Value, path: PathBuf) -> Config {
        let unexpanded = user;
        let raw = expand_env_refs(&unexpanded);
        let mut reader = Reader {
            root: &raw,
            warnings: Vec::new(),
        };
        let memory = reader.memory();
        let skills = reader.skills(&unexpanded);
        let curator = reader.curator();
        let display = reader.display();
        let model = model_config(&raw);
        let auxiliary = reader.auxiliary();
        let warnings = reader.warnings;
        Config {
            memory,
            skills,
            curator,
            display,
            model,
            auxiliary,
            raw,
            path,
            warnings,
        }
    }

    /// The user's config (after `${VAR}` expansion), for keys not modelled here.
    pub fn raw(&self) -> &Value {
        &self.raw
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keys whose value Hermes reads differently from how it looks; print them as warnings.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

impl SkillsConfig {
    /// The external skill roots that exist, as Hermes computes them: `~` and `$VAR` expanded,
    /// relative paths taken from the home, resolved, duplicates and the local root dropped.
    pub fn external_dir_paths(&self, home: &Home) -> Vec<PathBuf> {
        let local = super::resolve_lenient(&home.skills_dir());
        let mut seen: Vec<PathBuf> = Vec::new();
        for entry in &self.external_dirs {
            let expanded = super::expand_user(&super::expand_vars(entry));
            let path = PathBuf::from(expanded);
            let path = if path.is_absolute() {
                super::resolve_lenient(&path)
            } else {
                super::resolve_lenient(&home.root().join(path))
            };
            if path == local || seen.contains(&path) || !path.is_dir() {
                continue;
            }
            seen.push(path);
        }
        seen
    }

    /// Disabled names for a platform scope (`None`: the global list only).
    pub fn disabled_for(&self, platform: Option<&str>) -> Vec<String> {
        let mut names = self.disabled.clone();
        if let Some(extra) = platform.and_then(|p| self.platform_disabled.get(p)) {
            names.extend(extra.iter().cloned());
            names.sort();
            names.dedup();
        }
        names
    }
}

struct Reader<'a> {
    root: &'a Value,
    warnings: Vec<String>,
}

impl<'a> Reader<'a> {
    /// A section as Python's getters see it: absent, null or not a mapping reads as empty.
    fn section(&self, path: &[&str]) -> Option<&'a Mapping> {
        self.root.get_path(path).and_then(Value::as_map)
    }

    fn value(&self, path: &[&str]) -> Option<&'a Value> {
        self.root.get_path(path)
    }

    /// `bool(section.get(key, default))`.
    fn py_bool(&mut self, path: &[&str], default: bool) -> bool {
        match self.value(path) {
            None => default,
            Some(v) => {
                if let Value::Str(s) = v {
                    let looks = matches!(
                        s.trim().to_ascii_lowercase().as_str(),
                        "false" | "no" | "off" | "0"
                    );
                    if looks {
                        self.warnings.push(format!(
                            "config.yaml: {} is the string {s:?}, which Hermes reads as true; write false without quotes",
                            path.join(".")
                        ));
                    }
                }
                v.is_truthy()
            }
        }
    }

    /// `utils.is_truthy_value(v, default)`.
    fn truthy(&self, path: &[&str], default: bool) -> bool {
        match self.value(path) {
            None | Some(Value::Null) => default,
            Some(Value::Bool(b)) => *b,
            Some(Value::Str(s)) => matches!(
                s.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            ),
            Some(other) => other.is_truthy(),
        }
    }

    /// `write_approval._normalize_enabled`: a bool, or one of its words; anything else is off.
    fn approval_enabled(&self, path: &[&str]) -> bool {
        match self.value(path) {
            Some(Value::Bool(b)) => *b,
            Some(Value::Str(s)) => matches!(
                s.trim().to_ascii_lowercase().as_str(),
                "on" | "true" | "yes" | "1" | "approve" | "enabled"
            ),
            _ => false,
        }
    }

    /// `int(section.get(key, default))`, falling back to the default where Python's getter does.
    fn py_int(&mut self, path: &[&str], default: i64) -> i64 {
        match self.value(path) {
            None => default,
            Some(v) => py_int(v).unwrap_or_else(|| {
                self.warnings.push(format!(
                    "config.yaml: {} = {} is not an integer; using {default}",
                    path.join("."),
                    v.py_repr()
                ));
                default
            }),
        }
    }

    fn py_float(&mut self, path: &[&str], default: f64) -> f64 {
        match self.value(path) {
            None => default,
            Some(v) => py_float(v).unwrap_or_else(|| {
                self.warnings.push(format!(
                    "config.yaml: {} = {} is not a number; using {default}",
                    path.join("."),
                    v.py_repr()
                ));
                default
            }),
        }
    }

    fn string(&self, path: &[&str], default: &str) -> String {
        match self.value(path) {
            None => default.to_string(),
            Some(v) => string_or_empty(v),
        }
    }

    fn memory(&mut self) -> MemoryConfig {
        MemoryConfig {
            memory_enabled: self.py_bool(&["memory", "memory_enabled"], true),
            user_profile_enabled: self.py_bool(&["memory", "user_profile_enabled"], true),
            write_approval: self.approval_enabled(&["memory", "write_approval"]),
            memory_char_limit: self.py_int(&["memory", "memory_char_limit"], 2200),
            user_char_limit: self.py_int(&["memory", "user_char_limit"], 1375),
            nudge_interval: self.py_int(&["memory", "nudge_interval"], 10),
            provider: self.string(&["memory", "provider"], ""),
        }
    }

    fn skills(&mut self, unexpanded: &Value) -> SkillsConfig {
        // `disabled` and `external_dirs` come from Hermes's raw reader, which does not expand
        // `${VAR}` (external dirs get `os.path.expandvars` later instead).
        let raw_skills = unexpanded.get("skills").and_then(Value::as_map);
        let external_dirs = match raw_skills.and_then(|s| s.get("external_dirs")) {
            Some(v) if v.is_truthy() => match v {
                Value::Str(_) => string_list(std::slice::from_ref(v)),
                Value::Seq(items) => string_list(items),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        let disabled = name_set(raw_skills.and_then(|s| s.get("disabled")));
        let mut platform_disabled = BTreeMap::new();
        if let Some(map) = raw_skills
            .and_then(|s| s.get("platform_disabled"))
            .and_then(Value::as_map)
        {
            for (platform, names) in map.iter() {
                if !names.is_null() {
                    platform_disabled.insert(platform.py_str(), name_set(Some(names)));
                }
            }
        }
        let guard_path = ["skills", "guard_agent_created"];
        let timeout_value = self.value(&["skills", "inline_shell_timeout"]).cloned();
        SkillsConfig {
            external_dirs,
            disabled,
            platform_disabled,
            template_vars: self.py_bool(&["skills", "template_vars"], true),
            inline_shell: self.py_bool(&["skills", "inline_shell"], false),
            // `int(cfg.get("inline_shell_timeout", 10) or 10)`
            inline_shell_timeout: match timeout_value {
                Some(v) if v.is_truthy() => py_int(&v).unwrap_or(10),
                _ => 10,
            },
            guard_agent_created: self.truthy(&guard_path, false),
            guard_agent_created_set: !matches!(self.value(&guard_path), None | Some(Value::Null)),
            write_approval: self.approval_enabled(&["skills", "write_approval"]),
            creation_nudge_interval: self.py_int(&["skills", "creation_nudge_interval"], 10),
        }
    }

    fn curator(&mut self) -> CuratorConfig {
        // A `curator` (or `backup`) that is absent, null or not a mapping reads as empty, so
        // every key falls to its default, as in Python's getters.
        CuratorConfig {
            enabled: self.py_bool(&["curator", "enabled"], true),
            interval_hours: self.py_int(&["curator", "interval_hours"], 168),
            min_idle_hours: self.py_float(&["curator", "min_idle_hours"], 2.0),
            stale_after_days: self.py_int(&["curator", "stale_after_days"], 30),
            archive_after_days: self.py_int(&["curator", "archive_after_days"], 90),
            consolidate: self.py_bool(&["curator", "consolidate"], false),
            prune_builtins: self.py_bool(&["curator", "prune_builtins"], true),
            backup_enabled: self.py_bool(&["curator", "backup", "enabled"], true),
            backup_keep: self.py_int(&["curator", "backup", "keep"], 5).max(1),
        }
    }

    fn display(&self) -> DisplayConfig {
        let memory_notifications = match self.value(&["display", "memory_notifications"]) {
            None => "on".to_string(),
            Some(Value::Bool(true)) => "on".to_string(),
            Some(Value::Bool(false)) => "off".to_string(),
            Some(v) if !v.is_truthy() => "on".to_string(),
            Some(v) => v.py_str().to_lowercase(),
        };
        DisplayConfig {
            memory_notifications,
        }
    }

    fn auxiliary(&mut self) -> AuxiliaryConfig {
        let background_review = self.slot(&["auxiliary", "background_review"], 120.0);
        let curator = self.slot(&["auxiliary", "curator"], 600.0);
        let legacy_curator = self
            .section(&["curator", "auxiliary"])
            .is_some()
            .then(|| self.slot(&["curator", "auxiliary"], 600.0));
        AuxiliaryConfig {
            background_review,
            curator,
            legacy_curator,
        }
    }

    fn slot(&mut self, base: &[&str], default_timeout: f64) -> AuxiliarySlot {
        let at = |key: &'static str| -> Vec<&str> {
            let mut path = base.to_vec();
            path.push(key);
            path
        };
        AuxiliarySlot {
            provider: self.string(&at("provider"), "auto"),
            model: self.string(&at("model"), ""),
            base_url: self.string(&at("base_url"), ""),
            api_key: self.string(&at("api_key"), ""),
            timeout: self.py_float(&at("timeout"), default_timeout),
            extra_body: self
                .value(&at("extra_body"))
                .map_or_else(|| serde_json::json!({}), Value::to_json),
            reasoning_effort: self.string(&at("reasoning_effort"), ""),
        }
    }
}

/// Hermes's `_normalize_root_model_keys`: the model id ends up in `default` whatever key or
/// shorthand the user wrote it under.
fn model_config(root: &Value) -> ModelConfig {
    let section = root.get("model");
    let field = |key: &str| -> String {
        match section {
            Some(Value::Map(m)) => m
                .get(key)
                .filter(|v| v.is_truthy())
                .map(string_or_empty)
                .unwrap_or_default(),
            _ => String::new(),
        }
    };
    let root_field = |key: &str| -> String {
        root.get(key)
            .filter(|v| v.is_truthy())
            .map(string_or_empty)
            .unwrap_or_default()
    };
    let mut default = match section {
        Some(Value::Map(_)) => field("default"),
        Some(v) if v.is_truthy() => string_or_empty(v),
        _ => String::new(),
    };
    if default.is_empty() {
        default = [field("model"), field("name")]
            .into_iter()
            .find(|s| !s.is_empty())
            .unwrap_or_default();
    }
    let or = |primary: String, fallbacks: &[String]| -> String {
        std::iter::once(primary)
            .chain(fallbacks.iter().cloned())
            .find(|s| !s.is_empty())
            .unwrap_or_default()
    };
    ModelConfig {
        provider: or(field("provider"), &[root_field("provider")]),
        default,
        base_url: or(
            field("base_url"),
            &[
                root_field("base_url"),
                root_field("api_base"),
                field("api_base"),
            ],
        ),
        api_key: field("api_key"),
    }
}

/// A string setting as Python code uses it: text as is, null as empty, anything else `str()`.
fn string_or_empty(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        other => other.py_str(),
    }
}

/// `str(v).strip()` of each truthy-after-strip item.
fn string_list(items: &[Value]) -> Vec<String> {
    items
        .iter()
        .map(|v| v.py_str().trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Hermes's `_normalize_string_set`: a string or a list, stripped, blanks dropped; sorted here.
fn name_set(value: Option<&Value>) -> Vec<String> {
    let mut names = match value {
        None | Some(Value::Null) => Vec::new(),
        Some(v @ Value::Str(_)) => string_list(std::slice::from_ref(v)),
        Some(Value::Seq(items)) => string_list(items),
        Some(Value::Map(m)) => string_list(&m.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>()),
        Some(other) => string_list(std::slice::from_ref(other)),
    };
    names.sort();
    names.dedup();
    names
}

/// Python's `int(v)`: booleans and floats convert (floats truncate), strings parse as base-10
/// literals; `None` where Python raises.
pub fn py_int(v: &Value) -> Option<i64> {
    match v {
        Value::Bool(b) => Some(i64::from(*b)),
        Value::Int(i) => Some(*i),
        Value::Float(f) if f.is_finite() => Some(f.trunc() as i64),
        Value::Str(s) => match crate::pytext::parse_int(s) {
            Some(crate::pytext::PyInt::Small(n)) => Some(n),
            _ => None,
        },
        _ => None,
    }
}

/// Digits with single underscores between them, as Python's numeric literals allow.
fn valid_underscored_digits(text: &str) -> bool {
    !text.is_empty()
        && !text.starts_with('_')
        && !text.ends_with('_')
        && !text.contains("__")
        && text.bytes().all(|b| b.is_ascii_digit() || b == b'_')
}

/// Python's `float(v)`.
pub fn py_float(v: &Value) -> Option<f64> {
    match v {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        Value::Str(s) => {
            let text = s.trim();
            let bare = text.trim_start_matches(['+', '-']).to_ascii_lowercase();
            if matches!(bare.as_str(), "inf" | "infinity" | "nan") {
                return text.to_ascii_lowercase().parse().ok();
            }
            if text.contains('_') {
                let ok = text
                    .split(|c: char| !c.is_ascii_digit() && c != '_')
                    .all(|run| {
                        run.is_empty() || !run.contains('_') || valid_underscored_digits(run)
                    });
                if !ok {
                    return None;
                }
            }
            let cleaned = text.replace('_', "");
            if cleaned.is_empty()
                || cleaned
                    .bytes()
                    .any(|b| !(b.is_ascii_digit() || b"+-.eE".contains(&b)))
            {
                return None;
            }
            cleaned.parse().ok()
        }
        _ => None,
    }
}

/// Hermes's `_expand_env_vars`: `${VAR}` in string values (not keys) replaced when set.
fn expand_env_refs(value: &Value) -> Value {
    match value {
        Value::Str(s) if s.contains("${") => Value::Str(expand_braced(s)),
        Value::Seq(items) => Value::Seq(items.iter().map(expand_env_refs).collect()),
        Value::Map(map) => {
            let mut out = Mapping::new();
            for (k, v, line) in map.iter_with_lines() {
                out.insert(k.clone(), expand_env_refs(v), line);
            }
            Value::Map(out)
        }
        other => other.clone(),
    }
}

fn expand_braced(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(0) | None => {
                out.push_str("${");
                rest = after;
            }
            Some(end) => {
                let name = &after[..end];
                match std::env::var(name) {
                    Ok(value) => out.push_str(&value),
                    Err(_) => {
                        out.push_str("${");
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[end + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Config {
        Config::from_bytes(text.as_bytes(), Path::new("/h/config.yaml")).expect("parses")
    }

    #[test]
    fn defaults_without_a_file() {
        let c = Config::defaults();
        assert!(c.curator.enabled);
        assert_eq!(c.curator.interval_hours, 168);
        assert_eq!(c.curator.min_idle_hours, 2.0);
        assert_eq!(c.curator.backup_keep, 5);
        assert_eq!(c.memory.memory_char_limit, 2200);
        assert_eq!(c.memory.user_char_limit, 1375);
        assert_eq!(c.display.memory_notifications, "on");
        assert_eq!(c.auxiliary.curator.timeout, 600.0);
        assert_eq!(c.auxiliary.background_review.provider, "auto");
        assert!(!c.skills.guard_agent_created_set);
    }

    #[test]
    fn yaml11_booleans_read_as_python_reads_them() {
        let c = parse(
            "curator:\n  enabled: off\n  consolidate: yes\ndisplay:\n  memory_notifications: off\n",
        );
        assert!(!c.curator.enabled);
        assert!(c.curator.consolidate);
        assert_eq!(c.display.memory_notifications, "off");
    }

    #[test]
    fn quoted_false_is_true_with_a_warning() {
        let c = parse("curator:\n  enabled: \"false\"\n");
        assert!(c.curator.enabled);
        assert_eq!(c.warnings().len(), 1);
        assert!(c.warnings()[0].contains("curator.enabled"));
    }

    #[test]
    fn python_int_and_float_coercions() {
        let c = parse(
            "curator:\n  interval_hours: '24'\n  stale_after_days: 7.9\n  archive_after_days: soon\n  min_idle_hours: '0.5'\n  backup:\n    keep: 0\n",
        );
        assert_eq!(c.curator.interval_hours, 24);
        assert_eq!(c.curator.stale_after_days, 7);
        assert_eq!(c.curator.archive_after_days, 90);
        assert_eq!(c.curator.min_idle_hours, 0.5);
        assert_eq!(c.curator.backup_keep, 1);
    }

    #[test]
    fn null_section_keeps_defaults_and_null_key_is_false() {
        let c = parse("curator:\nmemory:\n  memory_enabled:\n");
        assert!(c.curator.enabled);
        assert!(!c.memory.memory_enabled);
    }

    #[test]
    fn model_shorthand_and_aliases() {
        assert_eq!(parse("model: gpt-4o\n").model.default, "gpt-4o");
        let c = parse("provider: openrouter\nmodel:\n  name: m1\n  api_base: http://x/v1\n");
        assert_eq!(c.model.default, "m1");
        assert_eq!(c.model.provider, "openrouter");
        assert_eq!(c.model.base_url, "http://x/v1");
    }

    #[test]
    fn env_refs_expand_in_values() {
        // SAFETY of the test: the variable name is unique to this test.
        unsafe { std::env::set_var("HERMES_LOOP_TEST_KEY", "sk-1") };
        let c = parse(
            "model:\n  api_key: ${HERMES_LOOP_TEST_KEY}\n  base_url: ${HERMES_LOOP_UNSET_X}/v1\n",
        );
        assert_eq!(c.model.api_key, "sk-1");
        assert_eq!(c.model.base_url, "${HERMES_LOOP_UNSET_X}/v1");
    }

    #[test]
    fn disabled_names_as_string_or_list() {
        let c = parse(
            "skills:\n  disabled: one\n  platform_disabled:\n    telegram: [two, ' three ']\n",
        );
        assert_eq!(c.skills.disabled, vec!["one"]);
        assert_eq!(
            c.skills.disabled_for(Some("telegram")),
            vec!["one", "three", "two"]
        );
    }

    #[test]
    fn broken_yaml_names_file_and_line() {
        let err = Config::from_bytes(
            b"curator:\n  enabled: true\n bad: [\n",
            Path::new("/h/config.yaml"),
        )
        .expect_err("broken");
        let text = err.to_string();
        assert!(text.starts_with("/h/config.yaml:"), "{text}");
        assert!(matches!(err, ConfigError::Parse { .. }));
    }

    #[test]
    fn non_mapping_top_level_is_an_error() {
        let err = Config::from_bytes(b"- a\n- b\n", Path::new("c.yaml")).expect_err("list");
        assert_eq!(
            err.to_string(),
            "c.yaml: the top level must be a mapping of sections, found a list"
        );
    }

    #[test]
    fn py_int_accepts_what_python_accepts() {
        assert_eq!(py_int(&Value::Str(" 1_000 ".into())), Some(1000));
        assert_eq!(py_int(&Value::Str("1__0".into())), None);
        assert_eq!(py_int(&Value::Str("3.5".into())), None);
        assert_eq!(py_int(&Value::Bool(true)), Some(1));
        assert_eq!(py_float(&Value::Str("1e3".into())), Some(1000.0));
        assert_eq!(py_float(&Value::Str("abc".into())), None);
    }
}
