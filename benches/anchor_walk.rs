//! The anchor walk alone: every file of a corpus read into memory, then walked by the
//! scanner's anchor automaton (the engine's own literals), best of 40 passes. The walk is
//! the one part of a scan that touches every byte; this times it without the file system,
//! the rules' automata or the reports around it.
//!
//!     anchor-walk CORPUS_DIR    prints `milliseconds ns_per_byte bytes occurrences`
//!
//! Built and run by benches/bench_scan.py (`cargo build --release --example anchor-walk`).

use std::time::Instant;

use hermes_loop::guard::anchors::Anchors;
use hermes_loop::guard::engine::Engine;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args_os()
        .nth(1)
        .ok_or("usage: anchor-walk CORPUS_DIR")?;
    let mut texts = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry?;
        // Files that do not read as UTF-8 are left out: this times the walk, not decoding.
        if entry.file_type().is_file()
            && let Ok(text) = std::fs::read_to_string(entry.path())
        {
            texts.push(text);
        }
    }
    let bytes: usize = texts.iter().map(String::len).sum();
    let anchors = Anchors::new(Engine::get().anchor_literals());
    let mut best = f64::MAX;
    let mut occurrences = 0usize;
    for _ in 0..40 {
        let started = Instant::now();
        occurrences = 0;
        for text in &texts {
            anchors.for_each(text.as_bytes(), |_, _| occurrences += 1);
        }
        best = best.min(started.elapsed().as_secs_f64());
    }
    println!(
        "{:.2} {:.3} {bytes} {occurrences}",
        best * 1e3,
        best * 1e9 / bytes.max(1) as f64
    );
    Ok(())
}
