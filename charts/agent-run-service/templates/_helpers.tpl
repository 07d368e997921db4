{{/* The chart name, and the prefix of every resource name (a DNS label: at most 63 characters). */}}
{{- define "ars.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "ars.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* A service's resource name: (dict "root" $ "service" "runs") → <fullname>-runs. */}}
{{- define "ars.serviceName" -}}
{{- printf "%s-%s" (include "ars.fullname" .root) .service -}}
{{- end -}}

{{- define "ars.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "ars.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: agent-run-service
{{- end -}}

{{/* The labels selecting one service's Pods: (dict "root" $ "service" "runs"). */}}
{{- define "ars.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ars.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .service }}
{{- end -}}

{{/* registry/repository:tag, or @digest when a digest is given; the tag defaults to appVersion. */}}
{{- define "ars.image" -}}
{{- $repo := .Values.image.repository -}}
{{- if .Values.image.registry -}}{{- $repo = printf "%s/%s" .Values.image.registry $repo -}}{{- end -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" $repo .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repo (include "ars.imageTag" .) -}}
{{- end -}}
{{- end -}}

{{- define "ars.imageTag" -}}
{{- .Values.image.tag | default .Chart.AppVersion | toString -}}
{{- end -}}

{{/*
Who calls whom: each service's peers, read from the *_URL variables of its configuration
(test/chart/topology.test.ts checks this against the services' config schemas). The callee's
NetworkPolicy admits exactly its callers; the caller gets <PEER>_URL pointing at the callee's Service.
*/}}
{{- define "ars.calls" -}}
gateway: [catalog, runs, sandboxes, automations-engine, pr-review, mcp-registry]
catalog: []
runs: [catalog, sandboxes]
sandboxes: [catalog]
automations-engine: [catalog, runs]
pr-review: [catalog, automations-engine]
mcp-registry: []
{{- end -}}

{{/* The services that reach HTTPS on the internet: GitHub (catalog, pr-review, sandboxes' pushes) and client metadata documents (gateway). */}}
{{- define "ars.internetClients" -}}
[gateway, catalog, sandboxes, pr-review]
{{- end -}}

{{/* Whether a Secret key is required: in production every configured secret the services refuse to run without. */}}
{{- define "ars.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ .key }}
      {{- if .optional }}
      optional: true
      {{- end }}
{{- end -}}

{{/* The environment of one service: (dict "root" $ "service" name "svc" values). Only the environment configures a service. */}}
{{- define "ars.env" -}}
{{- $root := .root -}}
{{- $name := .service -}}
{{- $svc := .svc -}}
{{- $v := $root.Values -}}
{{- $production := eq $v.environment "production" -}}
{{- $secret := $v.secrets.existingSecret -}}
- name: HOST
  value: 0.0.0.0
- name: PORT
  value: {{ $svc.port | quote }}
- name: ARS_ENV
  value: {{ $v.environment | quote }}
- name: NODE_ENV
  value: production
- name: LOG_LEVEL
  value: {{ $v.logLevel | quote }}
- name: SHUTDOWN_TIMEOUT_MS
  value: {{ include "ars.shutdownTimeoutMs" (dict "root" $root "service" $name) | quote }}
- name: METRICS_HOST
  value: 0.0.0.0
- name: METRICS_PORT
  value: {{ $v.metrics.port | quote }}
- name: HTTP_HEADERS_TIMEOUT_MS
  value: {{ $v.http.headersTimeoutMs | quote }}
- name: HTTP_REQUEST_TIMEOUT_MS
  value: {{ $v.http.requestTimeoutMs | quote }}
- name: HTTP_KEEP_ALIVE_TIMEOUT_MS
  value: {{ $v.http.keepAliveTimeoutMs | quote }}
- name: KAFKA_BROKERS
  value: {{ join "," $v.kafka.brokers | quote }}
{{ include "ars.secretEnv" (dict "name" "MONGO_URL" "secret" $v.mongo.existingSecret "key" (index $v.mongo.urlKeys $name)) }}
{{ include "ars.secretEnv" (dict "name" "INTERNAL_TOKEN" "secret" $secret "key" $v.secrets.keys.internalToken) }}
{{- if $v.otel.endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ $v.otel.endpoint | quote }}
{{- end }}
{{- $calls := include "ars.calls" $root | fromYaml }}
{{- range $peer := index $calls $name }}
- name: {{ printf "%s_URL" ($peer | upper | replace "-" "_") }}
  value: {{ printf "http://%s:%v" (include "ars.serviceName" (dict "root" $root "service" $peer)) (index $v.services $peer).port | quote }}
{{- end }}
{{- if or (eq $name "gateway") (eq $name "runs") }}
{{ include "ars.secretEnv" (dict "name" "REDIS_URL" "secret" (default $secret $v.redis.existingSecret) "key" $v.redis.urlKey) }}
{{- end }}
{{- if eq $name "gateway" }}
{{ include "ars.secretEnv" (dict "name" "OAUTH_COOKIE_KEYS" "secret" $secret "key" $v.secrets.keys.oauthCookieKeys "optional" (not $production)) }}
{{- if $v.gateway.publicBaseUrl }}
- name: PUBLIC_BASE_URL
  value: {{ $v.gateway.publicBaseUrl | quote }}
{{- end }}
- name: TRUST_PROXY
  value: {{ $v.gateway.trustProxy | quote }}
{{- if $v.gateway.oidc.issuer }}
- name: OIDC_ISSUER
  value: {{ $v.gateway.oidc.issuer | quote }}
- name: OIDC_CLIENT_ID
  value: {{ $v.gateway.oidc.clientId | quote }}
{{ include "ars.secretEnv" (dict "name" "OIDC_CLIENT_SECRET" "secret" $secret "key" $v.secrets.keys.oidcClientSecret) }}
{{- if $v.gateway.oidc.allowedEmailDomains }}
- name: OIDC_ALLOWED_EMAIL_DOMAINS
  value: {{ $v.gateway.oidc.allowedEmailDomains | quote }}
{{- end }}
- name: OIDC_ALLOW_ANY
  value: {{ $v.gateway.oidc.allowAny | quote }}
{{- end }}
{{- if $v.github.signIn.clientId }}
- name: GITHUB_CLIENT_ID
  value: {{ $v.github.signIn.clientId | quote }}
{{ include "ars.secretEnv" (dict "name" "GITHUB_CLIENT_SECRET" "secret" $secret "key" $v.secrets.keys.githubClientSecret) }}
- name: GITHUB_SIGN_IN
  value: {{ $v.github.signIn.enabled | quote }}
{{- if $v.github.appSlug }}
- name: GITHUB_APP_SLUG
  value: {{ $v.github.appSlug | quote }}
{{- end }}
{{- if $v.github.signIn.allowedOrgs }}
- name: GITHUB_ALLOWED_ORGS
  value: {{ $v.github.signIn.allowedOrgs | quote }}
{{- end }}
- name: GITHUB_ALLOW_ANY
  value: {{ $v.github.signIn.allowAny | quote }}
- name: GITHUB_WEB_URL
  value: {{ $v.github.webUrl | quote }}
- name: GITHUB_API_URL
  value: {{ $v.github.apiUrl | quote }}
{{- end }}
{{- end }}
{{- if eq $name "catalog" }}
{{ include "ars.secretEnv" (dict "name" "CATALOG_SECRETS_KEY" "secret" $secret "key" $v.secrets.keys.catalogSecretsKey "optional" (not $production)) }}
{{ include "ars.secretEnv" (dict "name" "CATALOG_SECRETS_PREVIOUS_KEYS" "secret" $secret "key" $v.secrets.keys.catalogSecretsPreviousKeys "optional" true) }}
{{- if $v.github.appId }}
- name: GITHUB_APP_ID
  value: {{ $v.github.appId | quote }}
{{ include "ars.secretEnv" (dict "name" "GITHUB_APP_PRIVATE_KEY" "secret" $secret "key" $v.secrets.keys.githubAppPrivateKey) }}
{{- if $v.github.signIn.clientId }}
- name: GITHUB_CLIENT_ID
  value: {{ $v.github.signIn.clientId | quote }}
{{ include "ars.secretEnv" (dict "name" "GITHUB_CLIENT_SECRET" "secret" $secret "key" $v.secrets.keys.githubClientSecret) }}
- name: GITHUB_WEB_URL
  value: {{ $v.github.webUrl | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- if or (eq $name "catalog") (eq $name "pr-review") }}
- name: GITHUB_API_URL
  value: {{ $v.github.apiUrl | quote }}
- name: SOURCE_HOST_DIR
  value: /tmp/source-host
{{- end }}
{{- if eq $name "pr-review" }}
{{ include "ars.secretEnv" (dict "name" "GITHUB_WEBHOOK_SECRET" "secret" $secret "key" $v.secrets.keys.githubWebhookSecret "optional" true) }}
- name: PR_REVIEW_APP_LOGIN
  value: {{ $v.github.appLogin | quote }}
{{- end }}
{{- if eq $name "mcp-registry" }}
{{ include "ars.secretEnv" (dict "name" "MCP_REGISTRY_SECRETS_KEY" "secret" $secret "key" $v.secrets.keys.mcpRegistrySecretsKey "optional" (not $production)) }}
{{ include "ars.secretEnv" (dict "name" "MCP_REGISTRY_SECRETS_PREVIOUS_KEYS" "secret" $secret "key" $v.secrets.keys.mcpRegistrySecretsPreviousKeys "optional" true) }}
{{- end }}
{{- if eq $name "sandboxes" }}
{{- $k := $v.sandboxes.kubernetes }}
- name: SANDBOX_PROVIDER
  value: {{ $v.sandboxes.provider | quote }}
- name: SANDBOX_DRAIN_MS
  value: {{ mul $v.sandboxes.drainSeconds 1000 | quote }}
- name: SANDBOX_ROOT
  value: /tmp/ars-sandboxes
- name: SNAPSHOT_ROOT
  value: /var/lib/ars/snapshots
{{- if eq $v.sandboxes.provider "local" }}
- name: SANDBOX_ISOLATION
  value: none
{{- end }}
- name: HARNESS_CLIS
  value: {{ $v.sandboxes.harnessClis | quote }}
{{- if $v.sandboxes.codexPath }}
- name: CODEX_PATH
  value: {{ $v.sandboxes.codexPath | quote }}
{{- end }}
{{- if $v.sandboxes.claudeCodePath }}
- name: CLAUDE_CODE_PATH
  value: {{ $v.sandboxes.claudeCodePath | quote }}
{{- end }}
{{ include "ars.secretEnv" (dict "name" "CODEX_API_KEY" "secret" $secret "key" $v.secrets.keys.codexApiKey "optional" true) }}
{{ include "ars.secretEnv" (dict "name" "ANTHROPIC_API_KEY" "secret" $secret "key" $v.secrets.keys.anthropicApiKey "optional" true) }}
{{- if eq $v.sandboxes.provider "kubernetes" }}
- name: K8S_NAMESPACE
  value: {{ $k.namespace | quote }}
- name: K8S_IMAGE
  value: {{ $k.image | quote }}
- name: K8S_GIT_IMAGE
  value: {{ $k.gitImage | quote }}
- name: K8S_CPU_REQUEST
  value: {{ $k.cpuRequest | quote }}
- name: K8S_CPU_LIMIT
  value: {{ $k.cpuLimit | quote }}
- name: K8S_MEMORY_REQUEST
  value: {{ $k.memoryRequest | quote }}
- name: K8S_MEMORY_LIMIT
  value: {{ $k.memoryLimit | quote }}
- name: K8S_EPHEMERAL_STORAGE_LIMIT
  value: {{ $k.ephemeralStorageLimit | quote }}
- name: K8S_READY_TIMEOUT_MS
  value: {{ $k.readyTimeoutMs | quote }}
{{- if $k.podPidsLimit }}
- name: K8S_POD_PIDS_LIMIT
  value: {{ $k.podPidsLimit | quote }}
{{- end }}
{{- /* A run's door to its model lives in the replica that opened it: its Pod is told this replica's own IP, never a Service spreading calls over replicas. */}}
- name: MODEL_GATEWAY_PORT
  value: {{ $k.modelGateway.port | quote }}
- name: MODEL_GATEWAY_POD_IP
  valueFrom:
    fieldRef:
      fieldPath: status.podIP
{{- /* The egress proxy, the Pods' one way out: its grants live in this replica too, reached on the same Pod IP. */}}
- name: EGRESS_PROXY_PORT
  value: {{ $k.egressProxy.port | quote }}
{{- if $k.noProxy }}
- name: K8S_NO_PROXY
  value: {{ join "," $k.noProxy | quote }}
{{- end }}
{{- if $k.nodeSelector }}
- name: K8S_NODE_SELECTOR
  value: {{ $k.nodeSelector | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- with $svc.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* SHUTDOWN_TIMEOUT_MS of one service: (dict "root" $ "service" name). Sandboxes' adds its drain (SANDBOX_DRAIN_MS must leave shutdown.timeoutMs of it for the rest). */}}
{{- define "ars.shutdownTimeoutMs" -}}
{{- $v := .root.Values -}}
{{- if eq .service "sandboxes" -}}
{{- add $v.shutdown.timeoutMs (mul $v.sandboxes.drainSeconds 1000) -}}
{{- else -}}
{{- $v.shutdown.timeoutMs -}}
{{- end -}}
{{- end -}}
