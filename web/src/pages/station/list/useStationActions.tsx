import { App } from 'antd'
import { useTranslation } from 'react-i18next'
import {
  deleteOutcome,
  removeStation,
  switchStation,
  type Station,
} from '../../../api/station/station'

/**
 * Delete and switch of a station, shared by the list and the archive.
 *
 * Delete asks first; the server refuses a station that still has devices unless confirmed, so
 * that refusal turns into a second question carrying its message and saying what goes with the
 * station (devices, prices, gateway credentials); only a yes sends `confirm=true`.
 */
export function useStationActions() {
  const { t } = useTranslation()
  const { message, modal } = App.useApp()

  const remove = (station: Pick<Station, 'id' | 'name'>, onDone: () => void) => {
    const id = station.id
    if (!id) return
    const attempt = async (confirmed: boolean) => {
      let error: unknown = undefined
      try {
        await removeStation(id, confirmed)
      } catch (e) {
        error = e
      }
      const outcome = deleteOutcome(error, confirmed)
      if (outcome.kind === 'done') {
        void message.success(t('crud.deleted'))
        onDone()
      } else if (outcome.kind === 'confirmDevices') {
        void modal.confirm({
          title: outcome.message,
          content: t('stationUi.delete.cascade', { name: station.name }),
          okType: 'danger',
          okText: t('stationUi.delete.confirmAll'),
          okButtonProps: { 'data-testid': 'station-delete-cascade-ok' },
          onOk: () => attempt(true),
        })
      } else void message.error(outcome.message)
    }
    void modal.confirm({
      title: t('crud.deleteConfirm'),
      content: station.name,
      okButtonProps: { 'data-testid': 'crud-delete-ok' },
      onOk: () => attempt(false),
    })
  }

  const switchToRunning = (station: Pick<Station, 'id' | 'name'>, onDone: () => void) => {
    const id = station.id
    if (!id) return
    void modal.confirm({
      title: t('stationUi.switch.confirm', { name: station.name }),
      okButtonProps: { 'data-testid': 'station-switch-ok' },
      onOk: async () => {
        try {
          const text = await switchStation(id)
          void message.success(text || t('stationUi.switch.done'))
          onDone()
        } catch {
          // shown by the request client
        }
      },
    })
  }

  return { remove, switchToRunning }
}
