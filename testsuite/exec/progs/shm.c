/*
 * shm.c - System V shared memory: create, attach twice (two addresses of the
 * same segment), write through one and read through the other, detach,
 * remove; then a detach of an address that is not a segment (EINVAL).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>

int main(void)
{
	int id = shmget(IPC_PRIVATE, 3 * 4096 + 100, IPC_CREAT | 0600);
	char *a, *b;
	int r;

	if (id < 0)
		return 1;
	a = shmat(id, NULL, 0);
	b = shmat(id, NULL, SHM_RDONLY);
	if (a == (void *)-1 || b == (void *)-1)
		return 2;
	strcpy(a + 3 * 4096, "shared across views");
	printf("%s distinct=%d\n", b + 3 * 4096, a != b);
	printf("shmdt a=%d\n", shmdt(a));
	printf("shmdt b=%d\n", shmdt(b));
	errno = 0;
	r = shmdt(b);
	printf("shmdt again=%d errno=%d\n", r, errno);
	shmctl(id, IPC_RMID, NULL);
	return 0;
}
