import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../config/config.js';
import { tracingSettings } from './tracing-settings.js';

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

describe('tracingSettings: off unless a destination is configured', () => {
  it('is off with no variables, and with OTEL_* variables that name no destination', () => {
    expect(tracingSettings('gateway', {})).toBeNull();
    expect(tracingSettings('gateway', { OTEL_SERVICE_NAME: 'edge', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod' })).toBeNull();
    expect(tracingSettings('gateway', { OTEL_TRACES_SAMPLER: 'always_on', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBeNull();
  });

  it('is on with an OTLP endpoint (exporter otlp by default) or an explicit exporter', () => {
    expect(tracingSettings('gateway', ENDPOINT)?.exporters).toEqual(['otlp']);
    expect(tracingSettings('gateway', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })?.exporters).toEqual(['otlp']);
    expect(tracingSettings('gateway', { OTEL_TRACES_EXPORTER: 'console' })?.exporters).toEqual(['console']);
    expect(tracingSettings('gateway', { OTEL_TRACES_EXPORTER: 'otlp, console' })?.exporters).toEqual(['otlp', 'console']);
  });

  it('is off with OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true, whatever else is set', () => {
    expect(tracingSettings('gateway', { ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
    expect(tracingSettings('gateway', { ...ENDPOINT, OTEL_SDK_DISABLED: 'TRUE' })).toBeNull();
    expect(tracingSettings('gateway', { ...ENDPOINT, OTEL_SDK_DISABLED: 'false' })).not.toBeNull();
  });

  it('refuses an exporter it does not have, naming the variable', () => {
    expect(() => tracingSettings('gateway', { OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(
      new ConfigError('OTEL_TRACES_EXPORTER must be one of otlp, console, got "zipkin"'),
    );
  });
});

describe('tracingSettings: protocol and endpoint', () => {
  it('defaults to http/protobuf at localhost:4318/v1/traces', () => {
    expect(tracingSettings('gateway', { OTEL_TRACES_EXPORTER: 'otlp' })).toMatchObject({
      protocol: 'http/protobuf',
      endpoint: 'http://localhost:4318/v1/traces',
    });
  });

  it('appends /v1/traces to the base endpoint and takes the traces endpoint as is', () => {
    expect(tracingSettings('gateway', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })?.endpoint).toBe('http://collector:4318/v1/traces');
    expect(tracingSettings('gateway', { ...ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/ingest' })?.endpoint).toBe(
      'https://traces.example/ingest',
    );
  });

  it('takes http/json and grpc, the traces protocol before the general one, and refuses others', () => {
    expect(tracingSettings('gateway', { ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })?.protocol).toBe('http/json');
    const grpc = tracingSettings('gateway', {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc',
    });
    expect(grpc).toMatchObject({ protocol: 'grpc', endpoint: 'http://localhost:4317' });
    expect(() => tracingSettings('gateway', { ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/xml' })).toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL must be one of http/protobuf, http/json, grpc, got "http/xml"',
    );
  });

  it('refuses an endpoint that is not an http(s) URL', () => {
    expect(() => tracingSettings('gateway', { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an absolute http or https URL, got "collector:4318"',
    );
  });
});

describe('tracingSettings: sampler', () => {
  it('defaults to parentbased_always_on with ratio 1', () => {
    expect(tracingSettings('gateway', ENDPOINT)).toMatchObject({ sampler: 'parentbased_always_on', samplerRatio: 1 });
  });

  it('reads the ratio of the traceidratio samplers and refuses one outside 0..1', () => {
    expect(tracingSettings('gateway', { ...ENDPOINT, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toMatchObject({
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
    });
    expect(() => tracingSettings('gateway', { ...ENDPOINT, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(
      'OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "1.5"',
    );
  });

  it('refuses a sampler it does not know', () => {
    expect(() => tracingSettings('gateway', { ...ENDPOINT, OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toThrow('OTEL_TRACES_SAMPLER must be one of');
  });
});

describe('tracingSettings: service name', () => {
  it('is the process name unless OTEL_SERVICE_NAME or service.name of OTEL_RESOURCE_ATTRIBUTES says otherwise', () => {
    expect(tracingSettings('firmware-update-check', ENDPOINT)?.serviceName).toBe('firmware-update-check');
    expect(tracingSettings('firmware', { ...ENDPOINT, OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=fw%20eu' })?.serviceName).toBe(
      'fw eu',
    );
    expect(tracingSettings('firmware', { ...ENDPOINT, OTEL_RESOURCE_ATTRIBUTES: 'service.name=fw', OTEL_SERVICE_NAME: 'firmware-eu' })?.serviceName).toBe(
      'firmware-eu',
    );
  });
});
