/**
 * k8s/ rendered as an operator deploys it: every overlay (k8s/overlays/*) built with
 * `kubectl kustomize` (secrets from the committed *.env.example files, copied into a scratch
 * copy of k8s/), parsed with `yaml` and checked:
 *
 * - every object against its schema: Kubernetes (kubernetes-models), prometheus-operator and
 *   Gateway API (@kubernetes-models/*);
 * - every Deployment runs an app of the code, with startup, liveness and readiness probes on a
 *   declared port (backend apps: the health listener's /startupz, /livez, /readyz; gateways:
 *   /healthz, /readyz), a PodDisruptionBudget, an HPA, a Service, NetworkPolicies that cover its
 *   ingress and egress, and a ServiceMonitor scraping it with the metrics token;
 * - each app receives only the secret keys it reads (as <VAR>_FILE files of a projection), and
 *   its environment passes loadConfig and the app's start-up assertion;
 * - the PostgreSQL connections at the autoscalers' maxima fit the overlay's budget
 *   (docs/operations.md "Running on Kubernetes": the formula);
 * - alert and dashboard expressions name only metrics the apps export
 *   (libs/infra/src/telemetry/metric-names.ts), with labels those metrics have;
 * - the update-check HTTPRoute matches the update-check endpoints and no other GET endpoint.
 *
 * The last tests feed the checks broken objects to show each kind of mistake is reported.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import { Namespace, ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { NetworkPolicy, Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { ServiceMonitor, PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { Gateway, HTTPRoute } from '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1';
import { assertDistributedConfig, loadConfig } from '../../libs/infra/src/config/config.js';
import { CONFIG_VARIABLES } from '../../libs/infra/src/config/variables.js';
import { METRIC_NAMES, SERVICE_METRICS } from '../../libs/infra/src/telemetry/metric-names.js';
import { ENDPOINTS } from '../../libs/contracts/src/endpoints/registry.js';
import { APP_NAMES } from '../../libs/contracts/src/apps.js';

const ROOT = resolve(process.cwd());
const OVERLAYS = readdirSync(join(ROOT, 'k8s/overlays'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/**
 * PostgreSQL connections each overlay may open at its autoscalers' maxima (during a rollout):
 * small and ingress talk to PostgreSQL directly (default max_connections 100, 3 reserved for
 * superusers); large goes through PgBouncer (max_client_conn 1000), docs/operations.md.
 */
const CONNECTION_BUDGET: Record<string, number> = { small: 97, ingress: 97, large: 1000 };

/** The secret keys each process reads: what its code needs (docs/operations.md has the table). */
const GATEWAY_SECRETS = ['DOWNLOAD_LINK_SECRET', 'METRICS_TOKEN', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'];
const BACKEND_SECRETS = ['DATABASE_URL', ...GATEWAY_SECRETS];
const SECRETS_OF: Record<string, readonly string[]> = {
  gateway: GATEWAY_SECRETS,
  'update-check': GATEWAY_SECRETS,
  identity: BACKEND_SECRETS,
  firmware: BACKEND_SECRETS,
  'firmware-update-check': BACKEND_SECRETS,
  logdata: BACKEND_SECRETS,
  registry: BACKEND_SECRETS,
  admin: [...BACKEND_SECRETS, 'BACKUP_S3_ACCESS_KEY_ID', 'BACKUP_S3_SECRET_ACCESS_KEY'],
  worker: [...BACKEND_SECRETS, 'SMTP_URL'],
  migrate: ['DATABASE_URL'],
};
const HEALTH_PORT = 9464;

// Rendered YAML, checked field by field.
type Obj = Record<string, any>;

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'networking.k8s.io/v1/Ingress': Ingress,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
  'gateway.networking.k8s.io/v1/Gateway': Gateway,
  'gateway.networking.k8s.io/v1/HTTPRoute': HTTPRoute,
};

/** Renders every overlay from a scratch copy of k8s/ with the example secrets filled in. */
function renderOverlays(): Record<string, Obj[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'fds-k8s-'));
  try {
    cpSync(join(ROOT, 'k8s'), join(scratch, 'k8s'), { recursive: true });
    const rendered: Record<string, Obj[]> = {};
    for (const overlay of OVERLAYS) {
      const dir = join(scratch, 'k8s/overlays', overlay);
      for (const example of ['secrets.env', 'metrics-token.env']) cpSync(join(scratch, 'k8s/overlays', `${example}.example`), join(dir, example));
      const text = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
      rendered[overlay] = parseAllDocuments(text)
        .map((doc) => doc.toJS() as Obj)
        .filter(Boolean);
    }
    return rendered;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export function schemaProblems(objects: readonly Obj[]): string[] {
  const problems: string[] = [];
  for (let object of objects) {
    const id = `${object.kind} ${object.metadata?.name}`;
    const Model = MODELS[`${object.apiVersion}/${object.kind}`];
    if (!Model) {
      problems.push(`${id}: no schema for ${object.apiVersion} ${object.kind}`);
      continue;
    }
    // kustomize wraps long base64 values over lines, which the API server's decoder skips (Go's
    // base64 ignores line breaks) but the schema's "byte" format does not.
    if (object.kind === 'Secret')
      object = { ...object, data: Object.fromEntries(Object.entries<string>(object.data ?? {}).map(([k, v]) => [k, v.replace(/\s+/g, '')])) };
    try {
      new Model(object as never).validate();
    } catch (err) {
      problems.push(`${id}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return problems;
}

const matches = (selector: Obj | undefined, labels: Obj | undefined) => !!selector && Object.entries(selector).every(([key, value]) => labels?.[key] === value);

/** The secret keys a pod's containers receive, and the environment they see with the files read. */
function secretsOf(pod: Obj, secrets: Obj[]): { keys: string[]; problems: string[] } {
  const problems: string[] = [];
  const keys: string[] = [];
  for (const volume of pod.volumes ?? []) {
    if (volume.secret) problems.push(`volume ${volume.name} mounts a whole Secret`);
    for (const source of volume.projected?.sources ?? []) {
      if (!source.secret) continue;
      if (!source.secret.items) problems.push(`volume ${volume.name} projects all of Secret ${source.secret.name}`);
      if (!secrets.some((s) => s.metadata.name === source.secret.name)) problems.push(`Secret ${source.secret.name} is not rendered`);
      for (const item of source.secret.items ?? []) {
        if (item.path !== item.key) problems.push(`${item.key} is mounted as ${item.path}`);
        keys.push(item.key);
      }
    }
  }
  for (const container of pod.containers) {
    for (const from of container.envFrom ?? []) if (from.secretRef) problems.push(`${container.name}: envFrom a whole Secret`);
    for (const variable of container.env ?? [])
      if (variable.valueFrom?.secretKeyRef) problems.push(`${container.name}: ${variable.name} from a Secret as a variable`);
  }
  return { keys: keys.sort(), problems };
}

/** What a container reads from its environment: ConfigMap, values, and *_FILE files resolved against the Secrets. */
function environmentOf(container: Obj, objects: readonly Obj[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === from.configMapRef?.name);
    Object.assign(env, configMap?.data ?? {});
  }
  const secretValues: Record<string, string> = {};
  for (const secret of objects.filter((o) => o.kind === 'Secret'))
    for (const [key, value] of Object.entries<string>(secret.data ?? {})) secretValues[key] = Buffer.from(value, 'base64').toString('utf8');
  for (const variable of container.env ?? []) {
    if (variable.name.endsWith('_FILE')) env[variable.name.slice(0, -'_FILE'.length)] = secretValues[variable.value.split('/').pop()];
    else env[variable.name] = variable.value;
  }
  return env;
}

export function workloadProblems(objects: readonly Obj[], overlay: string): string[] {
  const problems: string[] = [];
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  const secrets = of('Secret');
  const documented = new Set(CONFIG_VARIABLES.map((v) => v.name));
  const workloads = [...of('Deployment'), ...of('Job')];
  const running = new Set<string>();
  let connections = 0;
  for (const workload of workloads) {
    const name = workload.metadata.name as string;
    const where = `${overlay}: ${workload.kind} ${name}`;
    const pod = workload.spec.template.spec;
    const labels = workload.spec.template.metadata.labels;
    const [container, ...more] = pod.containers;
    if (more.length) problems.push(`${where}: one container expected`);
    const command: string[] = container.command;
    const dist = command.find((part) => /^dist\/apps\/[^/]+\/src\/main\.js$/.test(part)) ?? '';
    const app = /^dist\/apps\/([^/]+)\//.exec(dist)?.[1] ?? '';
    if (!existsSync(join(ROOT, dist.replace(/^dist\//, '').replace(/\.js$/, '.ts')))) problems.push(`${where}: runs ${dist}, which has no source`);
    if (app !== 'cli') running.add(app);
    if (container.securityContext?.readOnlyRootFilesystem !== true || container.securityContext?.allowPrivilegeEscalation !== false)
      problems.push(`${where}: the container must have a read-only root and no privilege escalation`);
    if (pod.securityContext?.runAsNonRoot !== true) problems.push(`${where}: must run as non-root`);

    const { keys, problems: secretProblems } = secretsOf(pod, secrets);
    problems.push(...secretProblems.map((p) => `${where}: ${p}`));
    const expected = [...(SECRETS_OF[name] ?? [])].sort();
    if (keys.join() !== expected.join()) problems.push(`${where}: receives secret keys ${keys.join(', ')}; it reads ${expected.join(', ')}`);
    const env = environmentOf(container, objects);
    for (const variable of Object.keys(env)) if (!documented.has(variable)) problems.push(`${where}: ${variable} is not a variable the code reads`);
    try {
      const config = loadConfig(env);
      if (app === 'gateway') assertDistributedConfig(config, { nats: true, s3: true, downloadSecret: true });
      else if (app !== 'cli') assertDistributedConfig(config, { database: true, nats: true, redis: true, s3: true, downloadSecret: true });
      else if (!config.databaseUrl) problems.push(`${where}: the migration needs DATABASE_URL`);
      if (workload.kind === 'Deployment' && app !== 'gateway') {
        const hpa = of('HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === name);
        const replicas = hpa?.spec.maxReplicas ?? workload.spec.replicas ?? 1;
        connections += (replicas + Math.ceil(replicas / 4)) * config.databasePoolSize;
      } else if (app === 'cli') connections += config.databasePoolSize;
    } catch (err) {
      problems.push(`${where}: ${err instanceof Error ? err.message : String(err)}`);
    }

    const networkPolicies = of('NetworkPolicy').filter((p) => matches(p.spec.podSelector.matchLabels ?? {}, labels));
    for (const type of ['Ingress', 'Egress'])
      if (!networkPolicies.some((p) => p.spec.policyTypes.includes(type) && Object.keys(p.spec.podSelector).length === 0 && !p.spec[type.toLowerCase()]))
        problems.push(`${where}: no default-deny ${type} NetworkPolicy`);
    const egress = networkPolicies.flatMap((p) => p.spec.egress ?? []).flatMap((rule: Obj) => rule.ports ?? []);
    if (egress.length === 0) problems.push(`${where}: no egress allowed`);
    if (workload.kind === 'Job') continue;

    const ports: Obj[] = container.ports ?? [];
    const probes =
      app === 'gateway'
        ? { startupProbe: '/healthz', livenessProbe: '/healthz', readinessProbe: '/readyz' }
        : { startupProbe: '/startupz', livenessProbe: '/livez', readinessProbe: '/readyz' };
    for (const [probe, path] of Object.entries(probes)) {
      const get = container[probe]?.httpGet;
      if (get?.path !== path) problems.push(`${where}: ${probe} should GET ${path}`);
      const port = ports.find((p) => p.name === get?.port || p.containerPort === get?.port);
      if (!port) problems.push(`${where}: ${probe} uses a port the container does not declare`);
      else if (app !== 'gateway' && port.containerPort !== HEALTH_PORT) problems.push(`${where}: ${probe} is not on the health listener (${HEALTH_PORT})`);
    }
    if (!pod.topologySpreadConstraints?.length) problems.push(`${where}: no topology spread constraints`);
    if (!of('PodDisruptionBudget').some((p) => matches(p.spec.selector.matchLabels, labels))) problems.push(`${where}: no PodDisruptionBudget`);
    const hpa = of('HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.kind === 'Deployment' && h.spec.scaleTargetRef.name === name);
    if (!hpa) problems.push(`${where}: no HorizontalPodAutoscaler`);
    else if (workload.spec.replicas !== undefined) problems.push(`${where}: sets replicas although an HPA owns them`);
    if (name === 'worker' && (hpa?.spec.minReplicas ?? 0) < 2) problems.push(`${where}: fewer than two workers (they send the login codes)`);
    const services = of('Service').filter((s) => matches(s.spec.selector, labels));
    if (!services.length) problems.push(`${where}: no Service selects its pods`);
    if (!networkPolicies.some((p) => (p.spec.ingress ?? []).length > 0)) problems.push(`${where}: nothing may reach it (not even Prometheus)`);
    const monitors = of('ServiceMonitor').filter((m) => services.some((s) => matches(m.spec.selector.matchLabels, s.metadata.labels)));
    const scraped = monitors.some((m) =>
      m.spec.endpoints.some(
        (e: Obj) =>
          e.path === '/metrics' &&
          e.authorization?.credentials?.key === 'METRICS_TOKEN' &&
          secrets.some((s) => s.metadata.name === e.authorization.credentials.name) &&
          services.some((s) => s.spec.ports?.some((p: Obj) => p.name === e.port && ports.some((c) => c.name === p.targetPort))),
      ),
    );
    if (of('ServiceMonitor').length && !scraped) problems.push(`${where}: no ServiceMonitor scrapes its /metrics with the metrics token`);
  }
  for (const app of APP_NAMES) if (!running.has(app)) problems.push(`${overlay}: no Deployment runs the ${app} app`);
  if (connections > (CONNECTION_BUDGET[overlay] ?? 0))
    problems.push(`${overlay}: ${connections} PostgreSQL connections at the autoscalers' maxima, over the budget of ${CONNECTION_BUDGET[overlay]}`);
  return problems;
}

const PROMQL_WORDS = new Set(
  'sum min max avg count by without on ignoring group_left group_right and or unless bool rate irate increase delta deriv histogram_quantile time absent absent_over_time humanize offset topk bottomk clamp_min clamp_max abs label_values'.split(
    ' ',
  ),
);
const SUFFIXES = /_(bucket|sum|count)$/;
const LABELS_OF = new Map(SERVICE_METRICS.map((m) => [m.name, new Set(m.labels)]));
/** Labels Prometheus adds to every scraped series. */
const TARGET_LABELS = new Set(['namespace', 'pod', 'job', 'service', 'instance', 'container', 'endpoint', 'le']);

/** Metric names (and, for the service's own, label names) an expression uses that the apps do not export. */
export function expressionProblems(expr: string): string[] {
  const problems: string[] = [];
  for (const [, metric, matchers] of expr.matchAll(/\b([a-z_:][a-z0-9_:]*)\s*\{([^}]*)\}/g)) {
    const labels = LABELS_OF.get(metric.replace(SUFFIXES, ''));
    if (!labels) continue;
    for (const [, label] of matchers.matchAll(/([a-z_]+)\s*(=~|!~|!=|=)/g))
      if (!labels.has(label) && !TARGET_LABELS.has(label)) problems.push(`${metric} has no label ${label}`);
  }
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, '');
  for (const [word] of bare.matchAll(/\b[a-zA-Z_:][a-zA-Z0-9_:]*\b/g)) {
    if (PROMQL_WORDS.has(word) || /^\d/.test(word)) continue;
    if (!METRIC_NAMES.includes(word.replace(SUFFIXES, ''))) problems.push(`${word} is not a metric the apps export`);
  }
  return problems;
}

function monitoringExpressions(objects: readonly Obj[]): Array<{ where: string; expr: string }> {
  const found: Array<{ where: string; expr: string }> = [];
  for (const rule of objects.filter((o) => o.kind === 'PrometheusRule'))
    for (const group of rule.spec.groups) for (const r of group.rules) found.push({ where: `alert ${r.alert}`, expr: String(r.expr) });
  for (const configMap of objects.filter((o) => o.kind === 'ConfigMap' && o.metadata.labels?.grafana_dashboard === '1')) {
    for (const [file, json] of Object.entries<string>(configMap.data)) {
      const dashboard = JSON.parse(json) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
      for (const panel of dashboard.panels) for (const target of panel.targets) found.push({ where: `${file} "${panel.title}"`, expr: target.expr });
    }
  }
  return found;
}

describe('k8s/ overlays rendered with kubectl kustomize', () => {
  let rendered: Record<string, Obj[]>;
  beforeAll(() => {
    rendered = renderOverlays();
  });

  it('has the overlays the docs name', () => {
    expect(OVERLAYS).toEqual(['ingress', 'large', 'small']);
  });

  it('every object is valid against the Kubernetes, prometheus-operator and Gateway API schemas', () => {
    for (const overlay of OVERLAYS) expect({ overlay, problems: schemaProblems(rendered[overlay]) }).toEqual({ overlay, problems: [] });
  });

  it('every Deployment: probes, PDB, HPA, spread, NetworkPolicies, scraping, only its secrets, a valid environment, connections in budget', () => {
    for (const overlay of OVERLAYS) expect(workloadProblems(rendered[overlay], overlay)).toEqual([]);
  });

  it('the migration Job runs before the apps with a deadline that fits the documented worst case', () => {
    for (const overlay of OVERLAYS) {
      const job = rendered[overlay].find((o) => o.kind === 'Job')!;
      // 30 kept days x 4.5 minutes of request-log index rebuild (docs/operations.md)
      expect(job.spec.activeDeadlineSeconds).toBeGreaterThanOrEqual(30 * 4.5 * 60);
      const before = rendered[overlay].filter((o) => o.metadata.labels?.['fds/stage'] === 'before-apps').map((o) => `${o.kind}`);
      expect(before.sort()).toEqual(['ConfigMap', 'Job', 'Namespace', 'Secret', 'Secret']);
    }
  });

  it('config and secret changes roll the pods: generated names carry a content hash', () => {
    for (const overlay of OVERLAYS) {
      const names = rendered[overlay].filter((o) => o.kind === 'ConfigMap' || o.kind === 'Secret').map((o) => o.metadata.name as string);
      expect(names.filter((n) => /^fds-(config|secrets)-[a-z0-9]{10}$/.test(n))).toHaveLength(2);
    }
  });

  it('alert and dashboard expressions name only metrics (and labels) the apps export', () => {
    for (const overlay of OVERLAYS) {
      const expressions = monitoringExpressions(rendered[overlay]);
      expect(expressions.length).toBeGreaterThan(20);
      expect(expressions.flatMap(({ where, expr }) => expressionProblems(expr).map((p) => `${where}: ${p}`))).toEqual([]);
    }
  });

  it('the update-check route takes the update-check endpoints and no other GET endpoint', () => {
    const route = rendered.small.find((o) => o.kind === 'HTTPRoute' && o.spec.rules[0].backendRefs[0].name === 'update-check')!;
    const match = route.spec.rules[0].matches[0];
    expect(match.method).toBe('GET');
    const pattern = new RegExp(match.path.value);
    const sample = (path: string) => path.replace(/\{[^}]+\}/g, 'x1');
    const updateChecks = ENDPOINTS.filter((e) => e.method === 'GET' && /^\/firmware\/\{domain\}/.test(e.path));
    expect(updateChecks).toHaveLength(2);
    for (const endpoint of ENDPOINTS) {
      if (endpoint.method !== 'GET') continue;
      expect({ path: endpoint.path, routed: pattern.test(sample(endpoint.path)) }).toEqual({ path: endpoint.path, routed: updateChecks.includes(endpoint) });
    }
  });
});

describe('the checks report broken manifests', () => {
  let small: Obj[];
  beforeAll(() => {
    small = renderOverlays().small;
  });
  const edit = (mutate: (objects: Obj[]) => void): Obj[] => {
    const copy = structuredClone(small);
    mutate(copy);
    return copy;
  };
  const deployment = (objects: Obj[], name: string) => objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)!;

  it('schemas: a wrong type and an unknown kind', () => {
    const broken = edit((objects) => {
      deployment(objects, 'gateway').spec.template.spec.containers[0].ports[0].containerPort = 'eighty';
      objects.push({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } });
    });
    const problems = schemaProblems(broken);
    expect(problems.some((p) => p.startsWith('Deployment gateway:'))).toBe(true);
    expect(problems).toContain('Widget w: no schema for example.com/v1 Widget');
  });

  it('workloads: a missing probe, a whole Secret, a secret key too many, no PDB, one worker, no scraping, too many connections', () => {
    const broken = edit((objects) => {
      delete deployment(objects, 'identity').spec.template.spec.containers[0].startupProbe;
      deployment(objects, 'logdata').spec.template.spec.containers[0].envFrom.push({ secretRef: { name: 'fds-secrets' } });
      const gateway = deployment(objects, 'gateway').spec.template.spec.volumes[0].projected.sources[0].secret;
      gateway.items.push({ key: 'DATABASE_URL', path: 'DATABASE_URL' });
      objects.splice(
        objects.findIndex((o) => o.kind === 'PodDisruptionBudget' && o.metadata.name === 'registry'),
        1,
      );
      objects.find((o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === 'worker')!.spec.minReplicas = 1;
      objects.find((o) => o.kind === 'ServiceMonitor' && o.metadata.name === 'fds-backend')!.spec.endpoints[0].authorization.credentials.key = 'TOKEN';
      objects.find((o) => o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === 'firmware-update-check')!.spec.maxReplicas = 30;
    });
    const problems = workloadProblems(broken, 'small');
    for (const expected of [
      'small: Deployment identity: startupProbe should GET /startupz',
      'small: Deployment logdata: logdata: envFrom a whole Secret',
      'small: Deployment registry: no PodDisruptionBudget',
      'small: Deployment worker: fewer than two workers (they send the login codes)',
      'small: Deployment admin: no ServiceMonitor scrapes its /metrics with the metrics token',
    ])
      expect(problems).toContain(expected);
    expect(problems.some((p) => p.startsWith('small: Deployment gateway: receives secret keys DATABASE_URL,'))).toBe(true);
    expect(problems.some((p) => /PostgreSQL connections at the autoscalers' maxima, over the budget of 97$/.test(p))).toBe(true);
  });

  it('expressions: an unknown metric, a label the metric does not have', () => {
    expect(expressionProblems('sum by (route) (rate(fds_http_requests_total{code="500"}[5m])) / fds_requests_total')).toEqual([
      'fds_http_requests_total has no label code',
      'fds_requests_total is not a metric the apps export',
    ]);
    expect(expressionProblems('histogram_quantile(0.99, sum by (le) (rate(fds_http_request_duration_seconds_bucket{route="/x"}[5m]))) > 2')).toEqual([]);
  });
});
