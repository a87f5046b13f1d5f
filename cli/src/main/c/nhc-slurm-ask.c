/*
 * nhc-slurm-ask SOCKET CONFIG: asks a running `nhc daemon` for its verdict, for bin/nhc-slurm, so
 * that slurmd's health check costs a connect and a read instead of a JVM start.
 *
 * Prints the daemon's report and exits with its exit code (0 or 1) when the daemon answers "ok";
 * exits 100 without printing anything whenever the one-shot check must run instead: no daemon,
 * a socket or directory anyone but us could have put there, a daemon of another config, a stale
 * verdict, or no complete answer within one second. Once the report is being printed there is no
 * falling back (it would be printed twice): a report that cannot be written out exits 1 and says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define FALL_BACK 100
#define LIMIT_MS 1000
#define MAX_ANSWER (1 << 20)

static long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/* Only a socket in a directory that only we (root) can write to is the daemon's. */
static int trusted(const char *sock) {
    struct stat st;
    char dir[sizeof(((struct sockaddr_un *) 0)->sun_path)];
    if (lstat(sock, &st) != 0 || !S_ISSOCK(st.st_mode) || st.st_uid != geteuid()) {
        return 0;
    }
    snprintf(dir, sizeof dir, "%s", sock);
    char *slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir) {
        return 0;
    }
    *slash = '\0';
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022) != 0) {
        return 0;
    }
    return 1;
}

static int wait_for(int fd, short events, long deadline) {
    struct pollfd p = {.fd = fd, .events = events};
    for (;;) {
        long left = deadline - now_ms();
        if (left <= 0) {
            return 0;
        }
        int r = poll(&p, 1, (int) left);
        if (r > 0) {
            return 1;
        }
        if (r < 0 && errno != EINTR) {
            return 0;
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: nhc-slurm-ask SOCKET CONFIG\n");
        return FALL_BACK;
    }
    const char *sock = argv[1];
    long deadline = now_ms() + LIMIT_MS;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(sock) >= sizeof addr.sun_path || !trusted(sock)) {
        return FALL_BACK;
    }
    strcpy(addr.sun_path, sock);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        return FALL_BACK;
    }
    if (connect(fd, (struct sockaddr *) &addr, sizeof addr) != 0) {
        if (errno != EINPROGRESS && errno != EAGAIN) {
            return FALL_BACK;
        }
        int err = 0;
        socklen_t len = sizeof err;
        if (!wait_for(fd, POLLOUT, deadline) || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
            return FALL_BACK;
        }
    }
    char request[8192];
    int n = snprintf(request, sizeof request, "verdict %s\n", argv[2]);
    if (n <= 0 || (size_t) n >= sizeof request) {
        return FALL_BACK;
    }
    for (int sent = 0; sent < n;) {
        if (!wait_for(fd, POLLOUT, deadline)) {
            return FALL_BACK;
        }
        ssize_t w = send(fd, request + sent, (size_t) (n - sent), MSG_NOSIGNAL);
        if (w < 0 && errno != EAGAIN && errno != EINTR) {
            return FALL_BACK;
        }
        sent += w > 0 ? (int) w : 0;
    }
    char *answer = malloc(MAX_ANSWER + 1);
    size_t got = 0;
    if (answer == NULL) {
        return FALL_BACK;
    }
    for (;;) {
        if (got == MAX_ANSWER || !wait_for(fd, POLLIN, deadline)) {
            return FALL_BACK;
        }
        ssize_t r = recv(fd, answer + got, MAX_ANSWER - got, 0);
        if (r == 0) {
            break;
        }
        if (r < 0) {
            if (errno == EAGAIN || errno == EINTR) {
                continue;
            }
            return FALL_BACK;
        }
        got += (size_t) r;
    }
    answer[got] = '\0';
    /* "ok N\n" then the report; anything else means: run the check yourself. */
    if (strncmp(answer, "ok ", 3) != 0 || (answer[3] != '0' && answer[3] != '1') || answer[4] != '\n') {
        return FALL_BACK;
    }
    size_t report = got - 5;
    if (fwrite(answer + 5, 1, report, stdout) != report || fflush(stdout) != 0) {
        /* Part of the report may be out already: the one-shot run would print it a second time. */
        fprintf(stderr, "nhc-slurm-ask: the daemon's answer broke off while it was printed (%s)\n", strerror(errno));
        return 1;
    }
    return answer[3] - '0';
}
