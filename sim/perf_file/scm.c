/*
 * scm.c - the fds an SCM_RIGHTS message carries (scm_fp_dup on send,
 * scm_detach_fds on receive), for the layers to take the file references
 * the message and the receiver's new fds hold.
 */
#include <string.h>
#include <sys/socket.h>
#include "sim/perf_file/perf_file.h"

void perf_fd_scm_each(struct msghdr *msg, void (*fn)(void *arg, int *fd), void *arg)
{
	struct cmsghdr *c;

	if (!msg || !msg->msg_control || msg->msg_controllen < sizeof(struct cmsghdr))
		return;
	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		size_t nfds;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfds; i++) {
			unsigned char *at = CMSG_DATA(c) + i * sizeof(int);
			int fd;

			memcpy(&fd, at, sizeof(fd));
			fn(arg, &fd);
			memcpy(at, &fd, sizeof(fd));
		}
	}
}
