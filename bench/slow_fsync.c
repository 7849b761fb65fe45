/* A slow disk for the scorer benchmark (bench_scorer.py --fsync-ms): loaded with LD_PRELOAD,
 * it makes every fsync and fdatasync of the process wait SLOW_FSYNC_MS milliseconds more, after
 * the real call has made the data durable. An SD card or a cheap SSD flushing its cache takes
 * milliseconds where this machine's virtual disk takes a tenth of one, and the cost of a durable
 * commit is what decides whether grouping commits pays. Both the scorer and the plain sqlite3
 * floor run under it, so their ratio compares them on the same (slower) disk.
 *
 * Build: cc -shared -fPIC -O2 -o slow_fsync.so slow_fsync.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <time.h>

static struct timespec extra(void)
{
    static long nanoseconds = -1; /* read once; a race only reads it twice */
    if (nanoseconds < 0) {
        const char *ms = getenv("SLOW_FSYNC_MS");
        nanoseconds = ms ? (long)(atof(ms) * 1e6) : 0;
    }
    struct timespec wait = {nanoseconds / 1000000000L, nanoseconds % 1000000000L};
    return wait;
}

static void wait_like_a_slow_disk(void)
{
    int saved = errno;
    struct timespec left = extra();
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
    errno = saved;
}

int fsync(int fd)
{
    static int (*real)(int);
    if (!real)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    int result = real(fd);
    wait_like_a_slow_disk();
    return result;
}

int fdatasync(int fd)
{
    static int (*real)(int);
    if (!real)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    int result = real(fd);
    wait_like_a_slow_disk();
    return result;
}
