//! The control API on a Unix socket (`[server] control_socket`): created with mode 0600, a stale
//! socket left by a crashed daemon replaced, a live one or any other file refused, and the file
//! removed when the daemon stops. The capability token is still required on it.

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use tokio::net::UnixListener;

/// A bound control socket; dropping it removes the socket file.
pub struct ControlSocket {
    path: PathBuf,
}

impl ControlSocket {
    /// Binds `path` (mode 0600). A socket file nobody answers on is stale and replaced; a socket
    /// another process serves, or a file that is not a socket, is refused with a message.
    pub fn bind(path: &Path) -> Result<(Self, UnixListener), String> {
        let shown = path.display();
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_socket() => {
                if std::os::unix::net::UnixStream::connect(path).is_ok() {
                    return Err(format!(
                        "{shown} (server.control_socket) is served by another process; stop it first"
                    ));
                }
                std::fs::remove_file(path)
                    .map_err(|e| format!("cannot replace stale socket {shown}: {e}"))?;
                tracing::info!(path = %shown, "stale control socket replaced");
            }
            Ok(_) => {
                return Err(format!(
                    "{shown} (server.control_socket) exists and is not a socket; not replacing it"
                ));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("cannot inspect {shown} (server.control_socket): {e}")),
        }
        // Bound under a private name and made 0600 before it appears at `path`, so no process
        // can connect during a window where the socket has the umask's mode; the hard link fails
        // when another process took `path` meanwhile (never replaced silently).
        let staging = staging_path(path);
        let _ = std::fs::remove_file(&staging);
        let listener = UnixListener::bind(&staging)
            .map_err(|e| format!("cannot listen on {shown} (server.control_socket): {e}"))?;
        let published = std::fs::set_permissions(&staging, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| format!("cannot make {shown} private (0600): {e}"))
            .and_then(|()| {
                std::fs::hard_link(&staging, path)
                    .map_err(|e| format!("cannot publish {shown} (server.control_socket): {e}"))
            });
        let _ = std::fs::remove_file(&staging);
        published?;
        Ok((Self { path: path.to_path_buf() }, listener))
    }

    /// The socket's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The name the socket is bound under before it is published: hidden, beside `path`, per process.
fn staging_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.binding", std::process::id()))
}

impl Drop for ControlSocket {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_socket_appears_private_and_leaves_no_staging_name() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("control.sock");
        let (guard, _listener) = ControlSocket::bind(&path).expect("bind");
        let mode = std::fs::metadata(&path).expect("socket").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "socket mode {mode:o}");
        let names: Vec<_> =
            std::fs::read_dir(dir.path()).expect("dir").map(|e| e.expect("entry").file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("control.sock")]);
        assert!(
            std::os::unix::net::UnixStream::connect(&path).is_ok(),
            "the published name accepts connections"
        );
        drop(guard);
        assert!(!path.exists(), "removed when dropped");
    }

    #[tokio::test]
    async fn a_live_socket_is_not_taken_over() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("control.sock");
        let (_guard, _listener) = ControlSocket::bind(&path).expect("bind");
        let err = ControlSocket::bind(&path).err().expect("refused");
        assert!(err.contains("another process"), "{err}");
    }
}
