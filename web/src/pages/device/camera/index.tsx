import { Alert, Modal, Spin } from 'antd'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import CrudPage from '../../../components/crud/CrudPage'
import { cameraLiveUrl, type Camera } from '../../../api/station/camera'
import { stationScope, type StationScoped } from '../common/fields'
import { cameraConfig } from './config'

type Live =
  | { state: 'loading'; name: string }
  | { state: 'ready'; name: string; url: string }
  | { state: 'failed'; name: string; message: string }

/**
 * The cameras of every station, or of one. "Live view" asks the server for the brand's live
 * address and shows it in a frame; a brand without one gets the server's explanation instead.
 */
export function CameraList({ stationId }: StationScoped) {
  const { t } = useTranslation()
  const [live, setLive] = useState<Live | null>(null)
  const config = useMemo(
    () =>
      cameraConfig(stationId, (row) => {
        if (!row.id) return
        const name = row.name ?? row.sn ?? ''
        setLive({ state: 'loading', name })
        cameraLiveUrl(row.id).then(
          (url) => setLive({ state: 'ready', name, url }),
          (error: unknown) =>
            setLive({
              state: 'failed',
              name,
              message:
                error instanceof Error && error.message
                  ? error.message
                  : t('deviceUi.camera.liveNotConfigured'),
            }),
        )
      }),
    [stationId, t],
  )
  const { query, fixed } = stationScope(stationId)
  return (
    <>
      <CrudPage<Camera> config={config} query={query} fixed={fixed} />
      <Modal
        open={live !== null}
        title={t('deviceUi.camera.liveTitle', { name: live?.name ?? '' })}
        width={960}
        footer={null}
        destroyOnHidden
        onCancel={() => setLive(null)}
        data-testid="camera-live"
      >
        {live?.state === 'loading' && <Spin />}
        {live?.state === 'failed' && (
          <Alert type="warning" showIcon title={live.message} data-testid="camera-live-error" />
        )}
        {live?.state === 'ready' && (
          <iframe
            src={live.url}
            title={live.name}
            data-testid="camera-live-frame"
            style={{ width: '100%', height: 540, border: 0 }}
            allow="autoplay; fullscreen"
            allowFullScreen
          />
        )}
      </Modal>
    </>
  )
}

/** /station/camera. */
export default function CameraPage() {
  return <CameraList />
}
