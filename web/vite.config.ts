import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// The Rust cloud hub serves /api and /ws on 8080; in development Vite serves the console and
// forwards those two prefixes so the browser sees one origin (as in production, where the hub
// serves the built console itself).
const backend = 'http://127.0.0.1:8080'

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      '/api': { target: backend, changeOrigin: true },
      '/ws': { target: backend, changeOrigin: true, ws: true },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
})
