//! Test helpers for the curate area.
