//! Progress bars: only on stderr, only when stderr is a terminal, never with `--quiet`, and
//! only once a run has lasted long enough for a person to read one ([`DELAY`]): a scan that
//! ends in a blink draws nothing. A visible bar is wiped from the terminal on Ctrl-C.

use std::io::IsTerminal;
use std::sync::Once;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run goes before its bar appears.
pub const DELAY: Duration = Duration::from_millis(700);

/// What a bar counts, for the units it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Units {
    /// Things, named in the plural (`"skills"`, `"messages"`).
    Count(&'static str),
    /// Bytes, shown as kB/MB/GB with a MB/s rate.
    Bytes,
}

/// A bar for `total` items, hidden unless a person is watching stderr. Redraws at most
/// 30 times a second, so a fast loop pays almost nothing for it.
pub fn bar(total: u64, label: &str, quiet: bool) -> ProgressBar {
    bar_in(total, label, quiet, Units::Count(""))
}

/// [`bar`] with units: `ingest [=====>    ] 12.4 MB/40.0 MB 31.2 MB/s eta 1s`.
pub fn bar_in(total: u64, label: &str, quiet: bool, units: Units) -> ProgressBar {
    if !drawn(quiet, std::io::stderr().is_terminal()) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
    bar.set_style(style(units));
    bar.set_prefix(label.to_string());
    reveal_after(&bar, DELAY);
    bar
}

/// A spinner for work of unknown size (`ingest -` from a pipe), with the same rules.
pub fn spinner(label: &str, quiet: bool, units: Units) -> ProgressBar {
    if !drawn(quiet, std::io::stderr().is_terminal()) {
        return ProgressBar::hidden();
    }
    let template = match units {
        Units::Bytes => "{prefix} {spinner} {decimal_bytes} {decimal_bytes_per_sec}".to_string(),
        Units::Count(noun) => format!("{{prefix}} {{spinner}} {{human_pos}} {noun} {{per_sec}}"),
    };
    let style = ProgressStyle::with_template(&template)
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden())
        .with_style(style)
        .with_prefix(label.to_string());
    reveal_after(&bar, DELAY);
    bar
}

/// Whether a bar may be drawn at all: a person watching stderr, and no `--quiet`.
fn drawn(quiet: bool, stderr_is_terminal: bool) -> bool {
    !quiet && stderr_is_terminal
}

fn template(units: Units) -> String {
    match units {
        Units::Bytes => "{prefix} [{bar:30}] {decimal_bytes}/{decimal_total_bytes} \
                         {decimal_bytes_per_sec} eta {eta}"
            .to_string(),
        Units::Count("") => "{prefix} [{bar:30}] {human_pos}/{human_len} eta {eta}".to_string(),
        Units::Count(noun) => {
            format!("{{prefix}} [{{bar:30}}] {{human_pos}}/{{human_len}} {noun} eta {{eta}}")
        }
    }
}

fn style(units: Units) -> ProgressStyle {
    ProgressStyle::with_template(&template(units))
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ")
}

/// Shows `bar` on stderr after `delay` unless it has finished by then. A detached thread
/// holding a handle: it never delays the exit of a run that ends first.
fn reveal_after(bar: &ProgressBar, delay: Duration) {
    let bar = bar.clone();
    let spawned = std::thread::Builder::new()
        .name("progress".into())
        .spawn(move || {
            std::thread::sleep(delay);
            if !bar.is_finished() {
                clear_line_on_interrupt();
                bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(30));
                bar.tick();
            }
        });
    // No thread, no bar: the run itself goes on.
    drop(spawned);
}

/// On Ctrl-C while a bar is drawn, wipe its line before dying of the signal as before, so the
/// shell prompt does not land after half a bar. A binary that handles SIGINT itself keeps
/// its handler.
fn clear_line_on_interrupt() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        extern "C" fn wipe_and_die(signal: libc::c_int) {
            const WIPE: &[u8] = b"\r\x1b[2K";
            // Only async-signal-safe calls here: write(2), signal(2), raise(3).
            unsafe {
                libc::write(2, WIPE.as_ptr().cast(), WIPE.len());
                libc::signal(signal, libc::SIG_DFL);
                libc::raise(signal);
            }
        }
        // SAFETY: installing a handler that only makes async-signal-safe calls; the previous
        // disposition is put back at once when it was not the default.
        unsafe {
            let previous = libc::signal(
                libc::SIGINT,
                wipe_and_die as *const () as libc::sighandler_t,
            );
            if previous != libc::SIG_DFL {
                libc::signal(libc::SIGINT, previous);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_compile_and_name_their_units() {
        for units in [Units::Bytes, Units::Count(""), Units::Count("messages")] {
            assert!(
                ProgressStyle::with_template(&template(units)).is_ok(),
                "{units:?}"
            );
        }
        assert!(template(Units::Bytes).contains("{decimal_bytes_per_sec}"));
        assert!(template(Units::Count("messages")).contains("{human_len} messages"));
    }

    #[test]
    fn a_bar_needs_a_terminal_and_no_quiet() {
        assert!(drawn(false, true));
        assert!(!drawn(true, true));
        assert!(!drawn(false, false));
        assert!(!drawn(true, false));
    }

    #[test]
    fn templates_say_their_units_literally() {
        assert_eq!(
            template(Units::Bytes),
            "{prefix} [{bar:30}] {decimal_bytes}/{decimal_total_bytes} \
             {decimal_bytes_per_sec} eta {eta}"
        );
        assert_eq!(
            template(Units::Count("")),
            "{prefix} [{bar:30}] {human_pos}/{human_len} eta {eta}"
        );
        assert_eq!(
            template(Units::Count("skills")),
            "{prefix} [{bar:30}] {human_pos}/{human_len} skills eta {eta}"
        );
    }

    #[test]
    fn quiet_bars_are_hidden() {
        assert!(bar(10, "x", true).is_hidden());
        assert!(spinner("x", true, Units::Bytes).is_hidden());
    }
}
