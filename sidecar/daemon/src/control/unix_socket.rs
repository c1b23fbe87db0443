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
        let listener = UnixListener::bind(path)
            .map_err(|e| format!("cannot listen on {shown} (server.control_socket): {e}"))?;
        let guard = Self { path: path.to_path_buf() };
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| format!("cannot make {shown} private (0600): {e}"))?;
        Ok((guard, listener))
    }

    /// The socket's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ControlSocket {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
