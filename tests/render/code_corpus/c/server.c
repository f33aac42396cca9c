/*
 * Copyright (c) 2009-2012, Example Authors
 * All rights reserved. A small server in the style of an in-memory store.
 */

#include <stdint.h>
#include <string.h>
#include <sys/time.h>

#include "adlist.h"

#define C_OK 0
#define C_ERR -1
#define PROTO_IOBUF_LEN (1024*16)
#define serverAssert(_e) \
    do { if (!(_e)) { _serverAssert(#_e, __FILE__, __LINE__); __builtin_unreachable(); } } while (0)
#define UNUSED(V) ((void) V)

/* Forward declarations, and the types named before they are defined. */
struct redisCommand;
struct client;
typedef struct client client;
typedef struct connection connection;

typedef void redisCommandProc(client *c);
typedef int (*redisGetKeysProc)(struct redisCommand *cmd, void **argv, int argc);

/* The object every value is held in. */
typedef struct redisObject {
    unsigned type:4;
    unsigned encoding:4;
    int refcount;
    void *ptr;
} robj;

typedef enum {
    CLIENT_TYPE_NORMAL = 0,
    CLIENT_TYPE_REPLICA,
    CLIENT_TYPE_PUBSUB,
} clientType;

struct redisCommand {
    const char *declared_name;
    redisCommandProc *proc;
    redisGetKeysProc getkeys_proc;
    int arity;
    struct redisCommand *parent;
    long long microseconds, calls;
};

struct client {
    uint64_t id;
    connection *conn;
    robj **argv;
    int argc;
    struct redisCommand *cmd, *lastcmd;
    union {
        int fd;
        void *handle;
    } io;
    struct {
        long long offset;
        size_t length;
    } repl;
    clientType type;
};

enum replyFlags { REPLY_NONE = 0, REPLY_OK = 1 << 0 };

union keyref {
    robj *key;
    const char *name;
};

struct redisServer server; /* the one server */
extern struct redisCommand *commandTable;

static void freeClientArgv(client *c);
struct redisCommand *lookupCommand(robj **argv, int argc);
static inline int clientHasPendingReplies(struct client *c);

static int nextClientId(void) {
    static uint64_t next = 1;
    return (int)next++;
}

client *createClient(connection *conn) {
    client *c = zmalloc(sizeof(struct client));
    struct timeval tv;

    gettimeofday(&tv, NULL);
    c->id = nextClientId();
    c->conn = conn;
    c->cmd = c->lastcmd = NULL;
    return c;
}

/* Frees the arguments. */
static void freeClientArgv(client *c) {
    for (int j = 0; j < c->argc; j++) decrRefCount(c->argv[j]);
    c->argc = 0;
}

struct redisCommand *lookupCommand(robj **argv, int argc) {
    struct redisCommand *base = lookupCommandLogic(argv, argc);
    UNUSED(argc);
    return base;
}

int processCommand(struct client *c) {
    struct redisCommand *cmd = lookupCommand(c->argv, c->argc);
    if (!cmd) return C_ERR;
    serverAssert(cmd->arity != 0);
    c->cmd = c->lastcmd = cmd;
    cmd->proc(c);
    return C_OK;
}

static inline int clientHasPendingReplies(struct client *c) {
    return c->argc > 0;
}

#ifdef HAVE_EPOLL
static int pollClients(int timeout) {
    return epollWait(timeout);
}
#else
static int pollClients(int timeout) {
    return selectWait(timeout);
}
#endif

void (*setSignalHandler(int sig, void (*handler)(int)))(int) {
    return signal(sig, handler);
}
