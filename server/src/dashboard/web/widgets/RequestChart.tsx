// Widget: requests and errors per bucket of time → a bar chart (Chart.js, on a canvas), described
// for screen readers and with its numbers in a table below it.
import { useEffect, useRef } from "react";
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from "chart.js";
import type { Bucket } from "../pages/logQueries";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

function label(bucket: Bucket): string {
  return new Date(bucket.start).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

export function summary(buckets: Bucket[], per: string): string {
  const requests = buckets.reduce((n, b) => n + b.requests, 0);
  const errors = buckets.reduce((n, b) => n + b.errors, 0);
  const busiest = buckets.reduce<Bucket | undefined>((best, b) => (b.requests > (best?.requests ?? 0) ? b : best), undefined);
  const peak = busiest ? `, at most ${busiest.requests} ${per} (${label(busiest)})` : "";
  return `${requests} requests and ${errors} errors in ${buckets.length} buckets${peak}`;
}

export function RequestChart({ buckets, per }: { buckets: Bucket[]; per: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return undefined;
    const chart = new Chart(canvas.current, {
      type: "bar",
      data: {
        labels: buckets.map(label),
        datasets: [
          { label: "Requests", data: buckets.map((b) => b.requests), backgroundColor: "#3b6fd8" },
          { label: "Errors (status 400 and up)", data: buckets.map((b) => b.errors), backgroundColor: "#d8453b" },
        ],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { y: { beginAtZero: true, ticks: { precision: 0 } }, x: { ticks: { autoSkip: true, maxRotation: 0 } } },
        plugins: { legend: { position: "bottom" } },
      },
    });
    return () => chart.destroy();
  }, [buckets]);
  const text = summary(buckets, per);
  return (
    <figure className="chart">
      <div className="chart-box">
        <canvas ref={canvas} role="img" aria-label={`Requests and errors ${per}: ${text}`}>
          {text}
        </canvas>
      </div>
      <figcaption>
        Requests and errors {per}: {text}
      </figcaption>
    </figure>
  );
}
