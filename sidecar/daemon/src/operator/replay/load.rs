//! Finding and parsing scenario files: a file, or every `*.json` below a folder, in path order.

use blindfold_schemas::Scenario;
use std::path::{Path, PathBuf};

/// A scenario that cannot be read or is malformed (the CLI exits 2 on it).
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct LoadError {
    /// The file (or folder) concerned.
    pub file: String,
    /// What is wrong, with the JSON path of a malformed field.
    pub message: String,
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), LoadError> {
    let err = |e: std::io::Error| LoadError { file: path.display().to_string(), message: e.to_string() };
    if path.is_dir() {
        let mut entries: Vec<PathBuf> =
            std::fs::read_dir(path).map_err(err)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for entry in entries {
            if entry.is_dir() || entry.extension().is_some_and(|x| x == "json") {
                collect(&entry, out)?;
            }
        }
    } else {
        std::fs::metadata(path).map_err(err)?;
        out.push(path.to_owned());
    }
    Ok(())
}

/// Loads every scenario under `paths` (files, or folders searched recursively for `*.json`).
///
/// Fails on the first unreadable or malformed file, and on two scenarios sharing an id.
pub fn load_paths(paths: &[PathBuf]) -> Result<Vec<(PathBuf, Scenario)>, LoadError> {
    let mut files = Vec::new();
    for p in paths {
        collect(p, &mut files)?;
    }
    let mut out: Vec<(PathBuf, Scenario)> = Vec::new();
    let mut seen = std::collections::BTreeMap::new();
    for file in files {
        let name = file.display().to_string();
        let bytes =
            std::fs::read(&file).map_err(|e| LoadError { file: name.clone(), message: e.to_string() })?;
        let scenario = Scenario::from_slice(&bytes)
            .map_err(|e| LoadError { file: name.clone(), message: e.to_string() })?;
        if let Some(other) = seen.insert(scenario.id.clone(), name.clone()) {
            return Err(LoadError {
                file: name,
                message: format!("id {:?} is also used by {other}", scenario.id),
            });
        }
        out.push((file, scenario));
    }
    Ok(out)
}
