import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The app is served by our Express server from dist/app; no CDN, every asset is bundled (works offline).
export default defineConfig({
  plugins: [react()],
  base: './',
  build: { outDir: 'dist/app', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 2000 },
  worker: { format: 'es' },
  server: { proxy: { '/api': 'http://127.0.0.1:6008' } },
});
