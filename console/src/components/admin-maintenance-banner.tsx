import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { useMe } from '../app/identity';
import { Link } from '../app/router';
import './admin.css';

export interface MaintenanceSetting {
  readonly enabled: boolean;
  readonly message: string;
}

const listeners = new Set<(setting: MaintenanceSetting) => void>();

/** The maintenance page tells the banner at once when it changes the setting. */
export function maintenanceChanged(setting: MaintenanceSetting): void {
  for (const listener of listeners) listener(setting);
}

/** How often the banner asks again (another administrator may switch maintenance on). */
const REFRESH_MS = 60_000;

/** Administrators: a banner on every page while maintenance mode is on (writes answer 503). */
export function MaintenanceBanner() {
  const me = useMe();
  const [setting, setSetting] = useState<MaintenanceSetting | null>(null);
  useEffect(() => {
    if (!me.admin) return;
    let live = true;
    const load = () =>
      api.GET('/admin/settings/maintenance').then(
        (answer) => live && setSetting(ok(answer)),
        () => undefined, // the banner is a hint; the pages show their own errors
      );
    void load();
    const timer = window.setInterval(() => void load(), REFRESH_MS);
    listeners.add(setSetting);
    return () => {
      live = false;
      window.clearInterval(timer);
      listeners.delete(setSetting);
    };
  }, [me.admin]);
  if (!setting?.enabled) return null;
  return (
    <div class="maintenance-banner" role="status" id="maintenance-banner">
      Maintenance mode is on: every write answers 503 ({setting.message}). <Link href="/console/admin/maintenance">Maintenance settings</Link>
    </div>
  );
}
