package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/contrib/exporters/autoexport"
	"go.opentelemetry.io/otel"
	promexporter "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
)

// observability is the OpenTelemetry SDK BrakingLab installs globally;
// codemode (through otelcodemode) and the SQL instrumentation reach it
// through the API.
type observability struct {
	// metrics serves Prometheus' text format when -metrics is set.
	metrics  http.Handler
	shutdown []func(context.Context) error
}

// setupOTel installs the exporters the standard environment variables
// choose (contrib autoexport): OTEL_TRACES_EXPORTER=console prints spans
// as JSON, otlp (or an OTEL_EXPORTER_OTLP_ENDPOINT) sends them to a
// collector, and with neither nothing is exported and no SDK is
// installed. OTEL_METRICS_EXPORTER works alike; prom adds a Prometheus
// reader served at /metrics. stdout belongs to the protocol under -stdio,
// so the console exporters are refused there.
func setupOTel(ctx context.Context, getenv func(string) string, stdio, prom bool) (*observability, error) {
	o := &observability{}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(semconv.ServiceName(serviceName(getenv))))
	if err != nil {
		return nil, err
	}
	endpoint := getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
	if want := getenv("OTEL_TRACES_EXPORTER"); want != "" || endpoint || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
		if stdio && want == "console" {
			return nil, errors.New("OTEL_TRACES_EXPORTER=console writes to stdout, which -stdio uses for the protocol: export with otlp instead")
		}
		exp, err := autoexport.NewSpanExporter(ctx)
		if err != nil {
			return nil, fmt.Errorf("OTEL_TRACES_EXPORTER: %w", err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		otel.SetTracerProvider(tp)
		o.shutdown = append(o.shutdown, tp.Shutdown)
	}
	// Trace context crosses processes even when this one exports nothing.
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))

	var readers []sdkmetric.Option
	if want := getenv("OTEL_METRICS_EXPORTER"); want != "" || endpoint || getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != "" {
		if stdio && want == "console" {
			return nil, errors.New("OTEL_METRICS_EXPORTER=console writes to stdout, which -stdio uses for the protocol: export with otlp instead")
		}
		r, err := autoexport.NewMetricReader(ctx)
		if err != nil {
			return nil, fmt.Errorf("OTEL_METRICS_EXPORTER: %w", err)
		}
		readers = append(readers, sdkmetric.WithReader(r))
	}
	if prom {
		reg := prometheus.NewRegistry()
		r, err := promexporter.New(promexporter.WithRegisterer(reg))
		if err != nil {
			return nil, fmt.Errorf("-metrics: %w", err)
		}
		readers = append(readers, sdkmetric.WithReader(r))
		o.metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	}
	if len(readers) > 0 {
		mp := sdkmetric.NewMeterProvider(append(readers, sdkmetric.WithResource(res))...)
		otel.SetMeterProvider(mp)
		o.shutdown = append(o.shutdown, mp.Shutdown)
	}
	return o, nil
}

// serviceName is OTEL_SERVICE_NAME, else "brakinglab".
func serviceName(getenv func(string) string) string {
	if n := getenv("OTEL_SERVICE_NAME"); n != "" {
		return n
	}
	return "brakinglab"
}

// close flushes and stops the exporters.
func (o *observability) close(ctx context.Context) error {
	var errs []error
	for _, f := range o.shutdown {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}
