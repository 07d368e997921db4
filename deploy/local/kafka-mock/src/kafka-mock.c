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
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
