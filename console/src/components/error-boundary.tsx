import { Component, type ComponentChildren } from 'preact';

/**
 * Around each page: an error thrown while the page renders (an answer of an unexpected shape,
 * a bug) shows what failed and a way to load the page again, instead of a blank page; the menu
 * and the rest of the console keep working. Opening another page starts afresh (the boundary
 * is keyed by the page).
 */
export class ErrorBoundary extends Component<{ title: string; children: ComponentChildren }, { error: unknown }> {
  override state: { error: unknown } = { error: undefined };

  static getDerivedStateFromError(error: unknown): { error: unknown } {
    return { error: error ?? new Error('unknown error') };
  }

  override componentDidCatch(error: unknown): void {
    // Kept in the browser's console for whoever reports it (the stack says where).
    console.error('The page failed to render', error);
  }

  override render() {
    if (this.state.error === undefined) return this.props.children;
    const text = this.state.error instanceof Error ? this.state.error.message : String(this.state.error);
    return (
      <section>
        <h1>{this.props.title}</h1>
        <div class="error" role="alert" id="page-error">
          <p>This page could not be shown: {text}</p>
          <p>
            {/* A full load: the page's data is fetched again. */}
            <a href={window.location.href}>Reload the page</a>; if it fails again, the console's other pages still work.
          </p>
        </div>
      </section>
    );
  }
}
