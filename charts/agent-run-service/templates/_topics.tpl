{{/* Generated from topicProvisioning() of shared/bus; test/chart/topics.test.ts checks it is the same list. */}}
{{- define "ars.topics" -}}
- name: runs.requested
  partitions: 12
- name: runs.requested.dlq
  partitions: 1
- name: runs.sandbox-allocated
  partitions: 12
- name: runs.sandbox-allocated.dlq
  partitions: 1
- name: runs.sandbox-queued
  partitions: 12
- name: runs.sandbox-queued.dlq
  partitions: 1
- name: runs.agent-events
  partitions: 12
- name: runs.agent-events.dlq
  partitions: 1
- name: runs.finished
  partitions: 12
- name: runs.finished.dlq
  partitions: 1
- name: sandboxes.lifecycle
  partitions: 6
- name: sandboxes.lifecycle.dlq
  partitions: 1
- name: automations.dispatch
  partitions: 6
- name: automations.dispatch.dlq
  partitions: 1
- name: pr-reviews.requested
  partitions: 6
- name: pr-reviews.requested.dlq
  partitions: 1
- name: bus.test
  partitions: 4
- name: bus.test.dlq
  partitions: 1
{{- end -}}
