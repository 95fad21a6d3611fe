//! Unix sockets at any depth: what carries a sandbox's connections to the Runtime's host side
//! (the provider relay, a server an adapter hosts for its harness).

use std::path::Path;

use tokio::net::UnixListener;

/// The longest path a socket address holds (`sun_path` less its terminating NUL).
const SUN_PATH_MAX: usize = 107;

/// Binds `socket`, whatever the length of its path: a data dir can be deeper than a socket
/// address holds, so a long path is bound through its directory's descriptor
/// (`/proc/self/fd/N/name`), which names the same directory in a few bytes.
pub fn bind(socket: &Path) -> std::io::Result<UnixListener> {
    if socket.as_os_str().len() <= SUN_PATH_MAX {
        return UnixListener::bind(socket);
    }
    let (Some(dir), Some(name)) = (socket.parent(), socket.file_name()) else {
        return UnixListener::bind(socket);
    };
    let dir = rustix::fs::open(
        dir,
        rustix::fs::OFlags::PATH | rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    )?;
    let short = Path::new("/proc/self/fd")
        .join(std::os::fd::AsRawFd::as_raw_fd(&dir).to_string())
        .join(name);
    UnixListener::bind(short)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::UnixStream;

    #[tokio::test]
    async fn a_socket_deeper_than_an_address_holds_is_still_bound() {
        let base = std::env::temp_dir().join(format!("unix-bind-{}", std::process::id()));
        let deep = base.join("d".repeat(60)).join("e".repeat(60));
        std::fs::create_dir_all(&deep).unwrap();
        let socket = deep.join("s.sock");
        let listener = bind(&socket).unwrap();
        assert!(socket.exists());
        let client = tokio::spawn({
            let socket = socket.clone();
            async move {
                // Connecting by the same long path: through the directory's descriptor too.
                let dir = std::fs::File::open(socket.parent().unwrap()).unwrap();
                let short = format!(
                    "/proc/self/fd/{}/s.sock",
                    std::os::fd::AsRawFd::as_raw_fd(&dir)
                );
                UnixStream::connect(short).await.unwrap()
            }
        });
        listener.accept().await.unwrap();
        client.await.unwrap();
        std::fs::remove_dir_all(base).unwrap();
    }
}
