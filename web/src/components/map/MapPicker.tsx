import { InputNumber, Space, Typography } from 'antd'
import L from 'leaflet'
import 'leaflet/dist/leaflet.css'
import './mapPicker.css'
import { useQuery } from '@tanstack/react-query'
import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { website } from '../../config/website'
import { useDarkTheme } from '../realtime/chartTheme'
import { chinaBounds, chinaProvincesQuery } from './chinaGeo'
import { COORD_DECIMALS, locationProblem, roundedLocation, type LatLng } from './coords'
import { tilesReachable } from './tiles'

interface Props {
  value?: LatLng
  onChange?: (value: LatLng) => void
  disabled?: boolean
  /** Map height in px. */
  height?: number
}

const outlineStyle = (dark: boolean): L.PathOptions =>
  dark
    ? { color: '#4f8fd6', weight: 1, fillColor: '#1d4f86', fillOpacity: 0.35 }
    : { color: '#409EFF', weight: 1, fillColor: '#409EFF', fillOpacity: 0.06 }

/** The map's own background under the outlines (and behind tiles still loading). */
const mapBackground = (dark: boolean): string => (dark ? '#0b1626' : '#eef3f8')

const hasPoint = (v?: LatLng): v is { latitude: number; longitude: number } =>
  typeof v?.latitude === 'number' && typeof v.longitude === 'number'

/**
 * Picks a location (WGS-84 latitude/longitude): click the map, or type the numbers. The map is the
 * bundled outline of China's provinces, with online tiles under it only when a probe tile loads
 * (offline it is the outlines alone, with no error). A form control: `value`/`onChange` of
 * `{latitude, longitude}`.
 */
export default function MapPicker({ value, onChange, disabled, height = 320 }: Props) {
  const { t } = useTranslation()
  const dark = useDarkTheme()
  const box = useRef<HTMLDivElement>(null)
  const map = useRef<L.Map | null>(null)
  const marker = useRef<L.CircleMarker | null>(null)
  const change = useRef(onChange)
  const locked = useRef(disabled)
  // Online tiles only when a probe tile loads; offline the outlines alone, with no error.
  const tiles = useQuery({
    queryKey: ['map', 'tiles', website.mapTileUrl],
    queryFn: () => tilesReachable(website.mapTileUrl, website.mapTileProbeTimeout),
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  })
  // Without the outlines the picker still works by typing numbers.
  const outlines = useQuery(chinaProvincesQuery()).data
  const base = tiles.data === undefined ? 'loading' : tiles.data ? 'tiles' : 'outlines'
  useEffect(() => {
    change.current = onChange
    locked.current = disabled
  })

  useEffect(() => {
    const el = box.current
    if (!el) return
    const m = L.map(el, { attributionControl: true, zoomSnap: 0.25, worldCopyJump: false })
    m.fitBounds(chinaBounds)
    m.on('click', (e: L.LeafletMouseEvent) => {
      if (locked.current) return
      change.current?.(roundedLocation(e.latlng.lat, e.latlng.lng))
    })
    map.current = m
    // A map laid out inside an opening dialog measures 0×0 at first.
    const resize = new ResizeObserver(() => m.invalidateSize())
    resize.observe(el)
    return () => {
      resize.disconnect()
      m.remove()
      map.current = null
      marker.current = null
    }
  }, [])

  useEffect(() => {
    const m = map.current
    if (!m || base !== 'tiles') return
    const layer = L.tileLayer(website.mapTileUrl, {
      attribution: website.mapTileAttribution,
      maxZoom: 18,
    })
    layer.addTo(m).bringToBack()
    return () => void layer.remove()
  }, [base])

  useEffect(() => {
    const m = map.current
    if (!m || !outlines) return
    const layer = L.geoJSON(outlines, { style: outlineStyle(dark), interactive: false }).addTo(m)
    return () => void layer.remove()
  }, [outlines, dark])

  const lat = value?.latitude
  const lng = value?.longitude
  useEffect(() => {
    const m = map.current
    if (!m) return
    if (typeof lat !== 'number' || typeof lng !== 'number' || locationProblem(value) !== null) {
      marker.current?.remove()
      marker.current = null
      return
    }
    if (!marker.current) {
      marker.current = L.circleMarker([lat, lng], {
        radius: 7,
        color: '#fff',
        weight: 2,
        fillColor: '#f5222d',
        fillOpacity: 1,
      }).addTo(m)
    } else marker.current.setLatLng([lat, lng])
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the position is lat/lng
  }, [lat, lng])

  const problem = locationProblem(value)
  const set = (patch: LatLng) => onChange?.({ ...value, ...patch })
  const step = 10 ** -COORD_DECIMALS

  return (
    <div data-testid="map-picker" data-base={base}>
      <Space wrap style={{ marginBottom: 8 }}>
        {/* No min/max: antd would clamp a wrong number silently; the range check reports it. */}
        <InputNumber
          data-testid="map-latitude"
          prefix={t('stationUi.map.latitude')}
          value={lat ?? null}
          step={step}
          disabled={disabled}
          status={problem === 'latitudeRange' ? 'error' : undefined}
          style={{ width: 220 }}
          onChange={(v) => set({ latitude: v ?? null })}
        />
        <InputNumber
          data-testid="map-longitude"
          prefix={t('stationUi.map.longitude')}
          value={lng ?? null}
          step={step}
          disabled={disabled}
          status={problem === 'longitudeRange' ? 'error' : undefined}
          style={{ width: 220 }}
          onChange={(v) => set({ longitude: v ?? null })}
        />
        {hasPoint(value) && !disabled && (
          <Typography.Link
            data-testid="map-clear"
            onClick={() => onChange?.({ latitude: null, longitude: null })}
          >
            {t('stationUi.map.clear')}
          </Typography.Link>
        )}
      </Space>
      <div
        ref={box}
        data-testid="map-canvas"
        data-dark={dark}
        className={dark ? 'map-picker-dark' : undefined}
        style={{
          height,
          width: '100%',
          borderRadius: 6,
          background: mapBackground(dark),
          cursor: 'crosshair',
        }}
      />
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {base === 'tiles' ? t('stationUi.map.hintTiles') : t('stationUi.map.hintOutlines')}
      </Typography.Text>
    </div>
  )
}
