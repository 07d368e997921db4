/*
 * kafka-mock: librdkafka's mock cluster as a standalone broker for development and tests.
 *
 *   kafka-mock [--brokers N] [--topic name:partitions ...] [--initial-rebalance-delay-ms MS]
 *
 * Prints one JSON line {"bootstrap":"127.0.0.1:port,..."} on stdout once the cluster listens,
 * then reads commands on stdin, one per line, answering each with one JSON line
 * ({"ok":true} or {"ok":false,"error":"..."}):
 *
 *   broker-down <id>                             rd_kafka_mock_broker_set_down
 *   broker-up <id>                               rd_kafka_mock_broker_set_up
 *   request-errors <apiKey> <errorCode> [count]  rd_kafka_mock_push_request_errors_array
 *   latency <brokerId> <ms>                      rd_kafka_mock_broker_set_rtt
 *   quit                                         destroy the cluster and exit 0
 *
 * EOF on stdin, SIGTERM or SIGINT: destroy the cluster and exit 0. Broker ids are 1..N.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

/*
 * A new consumer group's first join waits the broker's group.initial.rebalance.delay.ms (Kafka's
 * default 3 s; its documentation suggests 0 for development and tests). librdkafka 2.0.2's mock
 * hard-codes 3 s (rdkafka_mock_cgrp.c, rd_kafka_mock_cgrp_rebalance: "Same as
 * group.initial.rebalance.delay.ms on the broker"); librdkafka 2.4 made it settable. build.sh links
 * librdkafka statically with the mock's rebalance timer callback made visible
 * (objcopy --globalize-symbol) and every call of the internal timer start wrapped (ld --wrap), so
 * this program can give that one timer the delay asked for. Only the group rebalance timer with
 * exactly the hard-coded first-join delay is changed; its other delays (100 ms once every member
 * rejoined, the session timeout less 1 s) depend on the members' session timeouts, which are never
 * 4 s here (the bus's minimum is 6 s).
 *
 * A group whose last member leaves (LeaveGroup, or its session timed out) is Empty at once on a
 * Kafka broker: its pending rebalance has no member left to wait for, and the next member's join
 * waits only the first-join delay. librdkafka's mock instead keeps the group Joining for the
 * session timeout less 1 s (rd_kafka_mock_cgrp_rebalance), so a service restarted gracefully
 * waited 29 s to rejoin its own group. The wrapper gives that timer 1 ms when the group it belongs
 * to has no member: it then fires on an empty Joining group, which the mock makes Empty. Whether
 * the group is empty is read from the group's member list, which follows its rebalance timer in the
 * mock's group struct; the timer's own end is found by its callback and argument fields, just set,
 * and the list counts as empty only in the one shape an empty TAILQ has (first NULL, last pointing
 * at first). Any other layout leaves the timer as it was.
 */
#define MOCK_FIRST_JOIN_DELAY_US ((int64_t)3000 * 1000)
typedef struct rd_kafka_timers_s rd_kafka_timers_t;
typedef void(rd_kafka_timer_cb_t)(rd_kafka_timers_t *rkts, void *arg);
extern rd_kafka_timer_cb_t rd_kafka_mcgrp_rebalance_timer_cb;
void __real_rd_kafka_timer_start0(rd_kafka_timers_t *rkts, void *rtmr, int64_t interval, uint8_t oneshot, uint8_t restart,
                                  rd_kafka_timer_cb_t *callback, void *arg);
void __wrap_rd_kafka_timer_start0(rd_kafka_timers_t *rkts, void *rtmr, int64_t interval, uint8_t oneshot, uint8_t restart,
                                  rd_kafka_timer_cb_t *callback, void *arg);

static int64_t initial_rebalance_delay_us = MOCK_FIRST_JOIN_DELAY_US;

#define EMPTY_GROUP_REBALANCE_US ((int64_t)1000)

/* True when the member list right after this started timer is an empty TAILQ. */
static int group_has_no_member(void *rtmr, rd_kafka_timer_cb_t *callback, void *arg) {
        const char *timer = rtmr;
        for (size_t off = 0; off + 2 * sizeof(void *) <= 64; off += sizeof(void *)) {
                rd_kafka_timer_cb_t *field_callback;
                void *field_arg;
                memcpy(&field_callback, timer + off, sizeof field_callback);
                memcpy(&field_arg, timer + off + sizeof(void *), sizeof field_arg);
                if (field_callback != callback || field_arg != arg)
                        continue;
                const char *members = timer + off + 2 * sizeof(void *);
                void *first;
                void *last;
                memcpy(&first, members, sizeof first);
                memcpy(&last, members + sizeof(void *), sizeof last);
                return first == NULL && last == (const void *)members;
        }
        return 0;
}

void __wrap_rd_kafka_timer_start0(rd_kafka_timers_t *rkts, void *rtmr, int64_t interval, uint8_t oneshot, uint8_t restart,
                                  rd_kafka_timer_cb_t *callback, void *arg) {
        if (callback != rd_kafka_mcgrp_rebalance_timer_cb) {
                __real_rd_kafka_timer_start0(rkts, rtmr, interval, oneshot, restart, callback, arg);
                return;
        }
        if (interval == MOCK_FIRST_JOIN_DELAY_US)
                interval = initial_rebalance_delay_us;
        __real_rd_kafka_timer_start0(rkts, rtmr, interval, oneshot, restart, callback, arg);
        if (interval > EMPTY_GROUP_REBALANCE_US && group_has_no_member(rtmr, callback, arg))
                __real_rd_kafka_timer_start0(rkts, rtmr, EMPTY_GROUP_REBALANCE_US, oneshot, 1, callback, arg);
}

/*
 * A Kafka broker answers a fetch as soon as one of the fetched partitions has data, and only holds
 * it for the fetch's MaxWait while none has (the fetch purgatory). librdkafka 2.0.2's mock builds
 * an empty answer at once and holds it for the whole MaxWait (rdkafka_mock_handlers.c,
 * rd_kafka_mock_handle_Fetch: "isn't strictly correct since we should cut the wait short"), so
 * every message that arrives while a consumer waits was delivered up to MaxWait late: 250 ms per
 * Kafka hop with the bus's default, most of a run event's delay to its watchers.
 *
 * So this program ends the hold the way a broker would. build.sh wraps (ld --wrap) four internal
 * calls that cross object files in librdkafka.a:
 *   - rd_kafka_mock_partition_find, which the Fetch handler calls for each partition it reads:
 *     the partitions of the request being handled are noted;
 *   - rd_kafka_mock_connection_send_response: an answer held back (its rkbuf_ts_retry set, the
 *     mock's only use of that field) is recorded with the partitions its fetch asked for;
 *   - rd_kafka_mock_partition_log_append, called by the Produce handler: once a message is
 *     appended, every held fetch that asked for that partition is released (its hold cleared and
 *     its connection made writable through the mock's own write timer callback, made visible by
 *     objcopy). The consumer gets its empty answer now and fetches again at once, finding the
 *     message: one extra round trip instead of the rest of MaxWait;
 *   - rd_kafka_buf_destroy_final: an answer sent (after its hold, or released) or dropped with its
 *     connection is forgotten, so a record never outlives its buffer or its connection.
 * Only rkbuf_ts_retry's place in rd_kafka_buf_t is assumed (after the TAILQ link and the 32-bit
 * correlation id, rdkafka_buf.h); a value there that is not a monotonic time in the next ten
 * minutes turns the whole mechanism off (one line on stderr), leaving the mock's own behaviour.
 * All of it runs on the mock cluster's thread; the mutex covers buffers destroyed elsewhere.
 */
typedef struct rd_kafka_mock_partition_s rd_kafka_mock_partition_t;
typedef struct rd_kafka_mock_topic_s rd_kafka_mock_topic_t;
typedef struct rd_kafka_mock_connection_s rd_kafka_mock_connection_t;
typedef struct rd_kafka_buf_s rd_kafka_buf_t;
typedef struct rd_kafkap_bytes_s rd_kafkap_bytes_t;
typedef struct rd_kafkap_str_s rd_kafkap_str_t;

rd_kafka_mock_partition_t *__real_rd_kafka_mock_partition_find(const rd_kafka_mock_topic_t *mtopic, int32_t partition);
rd_kafka_mock_partition_t *__wrap_rd_kafka_mock_partition_find(const rd_kafka_mock_topic_t *mtopic, int32_t partition);
void __real_rd_kafka_mock_connection_send_response(rd_kafka_mock_connection_t *mconn, rd_kafka_buf_t *resp);
void __wrap_rd_kafka_mock_connection_send_response(rd_kafka_mock_connection_t *mconn, rd_kafka_buf_t *resp);
rd_kafka_resp_err_t __real_rd_kafka_mock_partition_log_append(rd_kafka_mock_partition_t *mpart, const rd_kafkap_bytes_t *records,
                                                               const rd_kafkap_str_t *TransactionalId, int64_t *BaseOffset);
rd_kafka_resp_err_t __wrap_rd_kafka_mock_partition_log_append(rd_kafka_mock_partition_t *mpart, const rd_kafkap_bytes_t *records,
                                                               const rd_kafkap_str_t *TransactionalId, int64_t *BaseOffset);
void __real_rd_kafka_buf_destroy_final(rd_kafka_buf_t *rkbuf);
void __wrap_rd_kafka_buf_destroy_final(rd_kafka_buf_t *rkbuf);
extern rd_kafka_timer_cb_t rd_kafka_mock_connection_write_out_tmr_cb;

/* The head of librdkafka 2.0.2's struct rd_kafka_buf_s, up to rkbuf_ts_retry. */
struct mock_buf_head {
        void *link_next;
        void **link_prev;
        int32_t corrid;
        int64_t ts_retry; /* rd_ts_t: absolute CLOCK_MONOTONIC µs */
};

#define HELD_FETCHES_MAX 4096
#define FETCH_PARTITIONS_MAX 64

struct held_fetch {
        rd_kafka_mock_connection_t *mconn;
        rd_kafka_buf_t *resp;
        int partition_cnt; /* -1: more than FETCH_PARTITIONS_MAX, released by any append */
        rd_kafka_mock_partition_t *partitions[FETCH_PARTITIONS_MAX];
};

static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static struct held_fetch *held_fetches;
static int held_cnt;
static int early_answers_off;
static rd_kafka_mock_partition_t *request_partitions[FETCH_PARTITIONS_MAX];
static int request_partition_cnt; /* -1 after an overflow */

static int64_t monotonic_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t *ts_retry_of(rd_kafka_buf_t *rkbuf) {
        return &((struct mock_buf_head *)(void *)rkbuf)->ts_retry;
}

rd_kafka_mock_partition_t *__wrap_rd_kafka_mock_partition_find(const rd_kafka_mock_topic_t *mtopic, int32_t partition) {
        rd_kafka_mock_partition_t *mpart = __real_rd_kafka_mock_partition_find(mtopic, partition);
        if (!mpart)
                return mpart;
        pthread_mutex_lock(&held_lock);
        if (request_partition_cnt >= 0 && request_partition_cnt < FETCH_PARTITIONS_MAX)
                request_partitions[request_partition_cnt++] = mpart;
        else
                request_partition_cnt = -1;
        pthread_mutex_unlock(&held_lock);
        return mpart;
}

/* With held_lock held: notes resp as a held fetch answer over the partitions its request read. */
static void hold_fetch(rd_kafka_mock_connection_t *mconn, rd_kafka_buf_t *resp) {
        int64_t retry_at = *ts_retry_of(resp);
        int64_t now = monotonic_us();
        if (retry_at == 0 || request_partition_cnt == 0)
                return;
        if (retry_at < now - 1000000 || retry_at > now + (int64_t)600 * 1000000) {
                early_answers_off = 1;
                fputs("kafka-mock: rd_kafka_buf_t is not laid out as expected; held fetches wait their whole MaxWait\n", stderr);
                return;
        }
        if (!held_fetches && !(held_fetches = calloc(HELD_FETCHES_MAX, sizeof(*held_fetches))))
                return;
        if (held_cnt == HELD_FETCHES_MAX)
                return; /* not tracked: waits its MaxWait, as in the mock */
        struct held_fetch *held = &held_fetches[held_cnt++];
        held->mconn = mconn;
        held->resp = resp;
        held->partition_cnt = request_partition_cnt;
        if (request_partition_cnt > 0)
                memcpy(held->partitions, request_partitions, (size_t)request_partition_cnt * sizeof(request_partitions[0]));
}

void __wrap_rd_kafka_mock_connection_send_response(rd_kafka_mock_connection_t *mconn, rd_kafka_buf_t *resp) {
        pthread_mutex_lock(&held_lock);
        if (!early_answers_off)
                hold_fetch(mconn, resp);
        request_partition_cnt = 0;
        pthread_mutex_unlock(&held_lock);
        __real_rd_kafka_mock_connection_send_response(mconn, resp);
}

static int fetch_reads(const struct held_fetch *held, const rd_kafka_mock_partition_t *mpart) {
        if (held->partition_cnt < 0)
                return 1;
        for (int i = 0; i < held->partition_cnt; i++)
                if (held->partitions[i] == mpart)
                        return 1;
        return 0;
}

rd_kafka_resp_err_t __wrap_rd_kafka_mock_partition_log_append(rd_kafka_mock_partition_t *mpart, const rd_kafkap_bytes_t *records,
                                                               const rd_kafkap_str_t *TransactionalId, int64_t *BaseOffset) {
        rd_kafka_resp_err_t err = __real_rd_kafka_mock_partition_log_append(mpart, records, TransactionalId, BaseOffset);
        if (err)
                return err;
        pthread_mutex_lock(&held_lock);
        for (int i = 0; i < held_cnt;) {
                struct held_fetch *held = &held_fetches[i];
                if (!fetch_reads(held, mpart)) {
                        i++;
                        continue;
                }
                *ts_retry_of(held->resp) = 0;
                rd_kafka_mock_connection_write_out_tmr_cb(NULL, held->mconn);
                *held = held_fetches[--held_cnt];
        }
        pthread_mutex_unlock(&held_lock);
        return err;
}

void __wrap_rd_kafka_buf_destroy_final(rd_kafka_buf_t *rkbuf) {
        pthread_mutex_lock(&held_lock);
        for (int i = 0; i < held_cnt; i++) {
                if (held_fetches[i].resp == rkbuf) {
                        held_fetches[i] = held_fetches[--held_cnt];
                        break;
                }
        }
        pthread_mutex_unlock(&held_lock);
        __real_rd_kafka_buf_destroy_final(rkbuf);
}

#define MAX_TOPICS 256
#define LINE_MAX_LEN 4096

static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int sig) {
        (void)sig;
        stop_requested = 1;
}

static void usage(void) {
        fprintf(stderr, "usage: kafka-mock [--brokers N] [--topic name:partitions ...] [--initial-rebalance-delay-ms MS]\n");
}

/* Writes s as a JSON string literal (with quotes) to stdout. */
static void json_string(const char *s) {
        putchar('"');
        for (; *s; s++) {
                unsigned char c = (unsigned char)*s;
                if (c == '"' || c == '\\')
                        printf("\\%c", c);
                else if (c < 0x20)
                        printf("\\u%04x", c);
                else
                        putchar(c);
        }
        putchar('"');
}

static void answer_ok(void) {
        fputs("{\"ok\":true}\n", stdout);
        fflush(stdout);
}

static void answer_error(const char *message) {
        fputs("{\"ok\":false,\"error\":", stdout);
        json_string(message);
        fputs("}\n", stdout);
        fflush(stdout);
}

static void answer_err(rd_kafka_resp_err_t err) {
        if (err == RD_KAFKA_RESP_ERR_NO_ERROR)
                answer_ok();
        else
                answer_error(rd_kafka_err2str(err));
}

/* Parses a whole decimal integer in [min, max]; returns 0 on success. */
static int parse_long(const char *s, long min, long max, long *out) {
        char *end;
        long v;
        if (!s || !*s)
                return -1;
        errno = 0;
        v = strtol(s, &end, 10);
        if (errno || *end || v < min || v > max)
                return -1;
        *out = v;
        return 0;
}

static int broker_count = 3;

static int valid_broker(long id) {
        return id == -1 || (id >= 1 && id <= broker_count);
}

/* Handles one command line; returns 1 when the program should exit. */
static int handle_command(rd_kafka_mock_cluster_t *mcluster, char *line) {
        char *argv[8];
        int argc = 0;
        char *save = NULL;
        char *tok;
        long a, b, c;

        for (tok = strtok_r(line, " \t\r", &save); tok && argc < 8; tok = strtok_r(NULL, " \t\r", &save))
                argv[argc++] = tok;
        if (argc == 0)
                return 0; /* blank line: no answer */

        if (!strcmp(argv[0], "quit")) {
                answer_ok();
                return 1;
        }
        if (!strcmp(argv[0], "broker-down") || !strcmp(argv[0], "broker-up")) {
                if (argc != 2 || parse_long(argv[1], -1, INT_MAX, &a) || !valid_broker(a)) {
                        answer_error("usage: broker-down|broker-up <brokerId 1..N or -1 for all>");
                        return 0;
                }
                answer_err(!strcmp(argv[0], "broker-down") ? rd_kafka_mock_broker_set_down(mcluster, (int32_t)a)
                                                           : rd_kafka_mock_broker_set_up(mcluster, (int32_t)a));
                return 0;
        }
        if (!strcmp(argv[0], "request-errors")) {
                rd_kafka_resp_err_t *errors;
                long i;
                c = 1;
                if ((argc != 3 && argc != 4) || parse_long(argv[1], 0, 32767, &a) ||
                    parse_long(argv[2], -32768, 32767, &b) || (argc == 4 && parse_long(argv[3], 1, 100000, &c))) {
                        answer_error("usage: request-errors <apiKey> <errorCode> [count]");
                        return 0;
                }
                errors = calloc((size_t)c, sizeof(*errors));
                if (!errors) {
                        answer_error("out of memory");
                        return 0;
                }
                for (i = 0; i < c; i++)
                        errors[i] = (rd_kafka_resp_err_t)b;
                rd_kafka_mock_push_request_errors_array(mcluster, (int16_t)a, (size_t)c, errors);
                free(errors);
                answer_ok();
                return 0;
        }
        if (!strcmp(argv[0], "latency")) {
                if (argc != 3 || parse_long(argv[1], -1, INT_MAX, &a) || !valid_broker(a) ||
                    parse_long(argv[2], 0, INT_MAX, &b)) {
                        answer_error("usage: latency <brokerId 1..N or -1 for all> <ms>");
                        return 0;
                }
                answer_err(rd_kafka_mock_broker_set_rtt(mcluster, (int32_t)a, (int)b));
                return 0;
        }
        {
                char message[LINE_MAX_LEN + 64];
                snprintf(message, sizeof(message), "unknown command: %s", argv[0]);
                answer_error(message);
        }
        return 0;
}

int main(int argc, char **argv) {
        const char *topic_names[MAX_TOPICS];
        int topic_partitions[MAX_TOPICS];
        int topic_cnt = 0;
        char errstr[512];
        rd_kafka_conf_t *conf;
        rd_kafka_t *rk;
        rd_kafka_mock_cluster_t *mcluster;
        struct sigaction sa;
        char buf[LINE_MAX_LEN];
        size_t used = 0;
        int i, done = 0;
        long v;

        for (i = 1; i < argc; i++) {
                if (!strcmp(argv[i], "--brokers") && i + 1 < argc) {
                        if (parse_long(argv[++i], 1, 64, &v)) {
                                fprintf(stderr, "kafka-mock: --brokers must be 1..64\n");
                                return 2;
                        }
                        broker_count = (int)v;
                } else if (!strcmp(argv[i], "--topic") && i + 1 < argc) {
                        char *spec = argv[++i];
                        char *colon = strrchr(spec, ':');
                        if (!colon || colon == spec || parse_long(colon + 1, 1, 10000, &v)) {
                                fprintf(stderr, "kafka-mock: --topic wants name:partitions, got %s\n", spec);
                                return 2;
                        }
                        if (topic_cnt == MAX_TOPICS) {
                                fprintf(stderr, "kafka-mock: at most %d topics\n", MAX_TOPICS);
                                return 2;
                        }
                        *colon = '\0';
                        topic_names[topic_cnt] = spec;
                        topic_partitions[topic_cnt] = (int)v;
                        topic_cnt++;
                } else if (!strcmp(argv[i], "--initial-rebalance-delay-ms") && i + 1 < argc) {
                        if (parse_long(argv[++i], 0, 300000, &v)) {
                                fprintf(stderr, "kafka-mock: --initial-rebalance-delay-ms must be 0..300000\n");
                                return 2;
                        }
                        initial_rebalance_delay_us = (int64_t)v * 1000;
                } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
                        usage();
                        return 0;
                } else {
                        usage();
                        return 2;
                }
        }

        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);

        /* The mock cluster needs an rd_kafka_t for its book keeping; it never produces anything. */
        conf = rd_kafka_conf_new();
        if (rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
                fprintf(stderr, "kafka-mock: %s\n", errstr);
                return 1;
        }
        rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
        if (!rk) {
                fprintf(stderr, "kafka-mock: rd_kafka_new: %s\n", errstr);
                return 1;
        }
        mcluster = rd_kafka_mock_cluster_new(rk, broker_count);
        if (!mcluster) {
                fprintf(stderr, "kafka-mock: could not create the mock cluster\n");
                rd_kafka_destroy(rk);
                return 1;
        }
        for (i = 0; i < topic_cnt; i++) {
                int replication = broker_count < 3 ? broker_count : 3;
                rd_kafka_resp_err_t err =
                    rd_kafka_mock_topic_create(mcluster, topic_names[i], topic_partitions[i], replication);
                if (err) {
                        fprintf(stderr, "kafka-mock: topic %s: %s\n", topic_names[i], rd_kafka_err2str(err));
                        rd_kafka_mock_cluster_destroy(mcluster);
                        rd_kafka_destroy(rk);
                        return 1;
                }
        }

        fputs("{\"bootstrap\":", stdout);
        json_string(rd_kafka_mock_cluster_bootstraps(mcluster));
        fputs("}\n", stdout);
        fflush(stdout);

        while (!done && !stop_requested) {
                struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
                ssize_t n;
                char *nl;
                int r = poll(&pfd, 1, 200);
                if (r < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                if (r == 0)
                        continue;
                n = read(STDIN_FILENO, buf + used, sizeof(buf) - 1 - used);
                if (n < 0) {
                        if (errno == EINTR || errno == EAGAIN)
                                continue;
                        break;
                }
                if (n == 0)
                        break; /* EOF */
                used += (size_t)n;
                buf[used] = '\0';
                while (!done && (nl = strchr(buf, '\n'))) {
                        size_t len = (size_t)(nl - buf) + 1;
                        *nl = '\0';
                        done = handle_command(mcluster, buf);
                        memmove(buf, buf + len, used - len + 1);
                        used -= len;
                }
                if (used == sizeof(buf) - 1) {
                        answer_error("command line too long");
                        used = 0;
                        buf[0] = '\0';
                }
        }

        rd_kafka_mock_cluster_destroy(mcluster);
        rd_kafka_destroy(rk);
        return 0;
}
